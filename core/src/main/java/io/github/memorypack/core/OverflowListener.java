package io.github.memorypack.core;

/**
 * Told when a view is bigger than its limit. That happens only when what can never be cut (the
 * system message, the summary and the newest turn) is already over the limit: the memory keeps it
 * anyway, because a request without its newest turn makes no sense, and reports it here instead
 * of hiding it. Called on the thread that computed the view, each time such a view is computed;
 * keep it fast and do not throw.
 */
@FunctionalInterface
public interface OverflowListener {

    void onOverflow(Overflow overflow);

    /**
     * The default of every memory: logs each report as a warning through {@link System.Logger}
     * (logger {@code io.github.memorypack.overflow}), so an overflow is never silent.
     */
    static OverflowListener logging() {
        return LoggingOverflowListener.INSTANCE;
    }

    /** A listener that ignores every report. */
    static OverflowListener ignore() {
        return overflow -> {
        };
    }
}

/** Logs overflows as warnings. */
enum LoggingOverflowListener implements OverflowListener {
    INSTANCE;

    private static final System.Logger LOGGER = System.getLogger("io.github.memorypack.overflow");

    @Override
    public void onOverflow(Overflow overflow) {
        LOGGER.log(System.Logger.Level.WARNING, () -> "chat memory view over its limit (the newest turn is kept): "
                + overflow);
    }
}
