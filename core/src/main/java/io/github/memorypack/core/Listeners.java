package io.github.memorypack.core;

import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The listeners of one {@link MemoryOptions} as one listener. */
final class Listeners {

    private Listeners() {
    }

    /** Calls every listener, catching what one throws so a memory's caller never sees it. */
    static MemoryListener combined(List<MemoryListener> listeners) {
        List<MemoryListener> all = List.copyOf(listeners);
        Logger log = LoggerFactory.getLogger(MemoryListener.class);
        return new MemoryListener() {
            private void each(Consumer<MemoryListener> call) {
                for (MemoryListener listener : all) {
                    try {
                        call.accept(listener);
                    } catch (RuntimeException e) {
                        log.warn("memory listener {} threw; ignored", listener, e);
                    }
                }
            }

            @Override
            public void onView(ViewShown view) {
                each(l -> l.onView(view));
            }

            @Override
            public void onOverflow(Overflow overflow) {
                each(l -> l.onOverflow(overflow));
            }

            @Override
            public void onFold(Fold fold) {
                each(l -> l.onFold(fold));
            }

            @Override
            public void onSummaryFailure(MemoryListener.SummaryFailure failure) {
                each(l -> l.onSummaryFailure(failure));
            }

            @Override
            public void onFoldSkipped(String sessionId, String strategy) {
                each(l -> l.onFoldSkipped(sessionId, strategy));
            }
        };
    }
}
