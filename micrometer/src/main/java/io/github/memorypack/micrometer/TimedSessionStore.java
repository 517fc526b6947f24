package io.github.memorypack.micrometer;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A {@link SessionStore} that times each call of its delegate ({@link MemoryPackMetrics#STORE_OPERATIONS})
 * and counts the ones that throw ({@link MemoryPackMetrics#STORE_ERRORS}); everything else is the
 * delegate's. The LangChain4j methods are delegated too, so a store that overrides them keeps its own.
 */
final class TimedSessionStore implements SessionStore, AutoCloseable {

    /** The operations, as their {@code operation} tag values. */
    enum Operation {
        APPEND("append"), READ("read"), READ_LAST("readLast"), NEXT_INDEX("nextIndex"), STATE("state"),
        COMPARE_AND_SET_STATE("compareAndSetState"), REPLACE("replace"), TRIM("trim"), SESSIONS("sessions"),
        DELETE("delete"), GET_MESSAGES("getMessages"), UPDATE_MESSAGES("updateMessages"),
        DELETE_MESSAGES("deleteMessages");

        final String tag;

        Operation(String tag) {
            this.tag = tag;
        }
    }

    private final SessionStore delegate;
    private final String backend;
    private final MeterRegistry registry;
    private final Map<Operation, Timer> succeeded = new ConcurrentHashMap<>();
    private final Map<Operation, Timer> failed = new ConcurrentHashMap<>();
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();

    TimedSessionStore(SessionStore delegate, String backend, MeterRegistry registry) {
        this.delegate = delegate;
        this.backend = backend;
        this.registry = registry;
    }

    /** Whether this store records to {@code other}. */
    boolean timesOn(MeterRegistry other) {
        return registry == other;
    }

    /** The {@code backend} tag of this store's meters. */
    String backend() {
        return backend;
    }

    private Timer timer(Operation operation, String outcome) {
        return Timer.builder(MemoryPackMetrics.STORE_OPERATIONS).description("Duration of each session store operation")
                .tags("backend", backend, "operation", operation.tag, "outcome", outcome).register(registry);
    }

    private <T> T timed(Operation operation, Supplier<T> call) {
        long start = System.nanoTime();
        try {
            T result = call.get();
            succeeded.computeIfAbsent(operation, o -> timer(o, "success"))
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            return result;
        } catch (RuntimeException | Error e) {
            failed.computeIfAbsent(operation, o -> timer(o, "error"))
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            String exception = e.getClass().getSimpleName();
            errors.computeIfAbsent(operation.tag + '/' + exception, k -> Counter.builder(MemoryPackMetrics.STORE_ERRORS)
                    .description("Session store operations that threw")
                    .tags("backend", backend, "operation", operation.tag, "exception", exception)
                    .register(registry)).increment();
            throw e;
        }
    }

    private void timed(Operation operation, Runnable call) {
        timed(operation, () -> {
            call.run();
            return null;
        });
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        return timed(Operation.APPEND, () -> delegate.append(sessionId, entries, idempotencyKey));
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        return timed(Operation.READ, () -> delegate.read(sessionId, fromIndex, maxCount));
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        return timed(Operation.READ_LAST, () -> delegate.readLast(sessionId, count));
    }

    @Override
    public long nextIndex(String sessionId) {
        return timed(Operation.NEXT_INDEX, () -> delegate.nextIndex(sessionId));
    }

    @Override
    public SessionState state(String sessionId) {
        return timed(Operation.STATE, () -> delegate.state(sessionId));
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        return timed(Operation.COMPARE_AND_SET_STATE,
                () -> delegate.compareAndSetState(sessionId, expectedVersion, newState));
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        timed(Operation.REPLACE, () -> delegate.replace(sessionId, entries));
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        timed(Operation.TRIM, () -> delegate.trim(sessionId, beforeIndex));
    }

    @Override
    public List<String> sessions() {
        return timed(Operation.SESSIONS, delegate::sessions);
    }

    /** The delegate's folder (no I/O, so not timed): recall on an instrumented file store keeps its index on disk. */
    @Override
    public Optional<Path> derivedDataDirectory(String kind) {
        return delegate.derivedDataDirectory(kind);
    }

    @Override
    public void delete(String sessionId) {
        timed(Operation.DELETE, () -> delegate.delete(sessionId));
    }

    /** The delegate's id (not timed: a lookup after the first call, not a store operation). */
    @Override
    public String processId() {
        return delegate.processId();
    }

    /** The delegate's answer (not timed: asked only about a turn another process left open). */
    @Override
    public boolean processEnded(String processId) {
        return delegate.processEnded(processId);
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        return timed(Operation.GET_MESSAGES, () -> delegate.getMessages(memoryId));
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        timed(Operation.UPDATE_MESSAGES, () -> delegate.updateMessages(memoryId, messages));
    }

    @Override
    public void deleteMessages(Object memoryId) {
        timed(Operation.DELETE_MESSAGES, () -> delegate.deleteMessages(memoryId));
    }

    /** Closes the delegate when it is {@link AutoCloseable}. */
    @Override
    public void close() throws Exception {
        if (delegate instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Override
    public String toString() {
        return "Timed[" + backend + "]" + delegate;
    }
}
