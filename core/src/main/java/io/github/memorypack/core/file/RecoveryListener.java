package io.github.memorypack.core.file;

/**
 * Told about every torn tail {@link FileSessionStore} sets aside (see {@link Recovery}), after the
 * repair and after the session's lock is released, on the thread whose store call found it. The
 * store also logs each recovery as an SLF4J warning. An exception thrown here is logged and does
 * not fail the store call.
 */
@FunctionalInterface
public interface RecoveryListener {

    void onRecovery(Recovery recovery);

    /** A listener that does nothing (the store still logs a warning). */
    static RecoveryListener ignore() {
        return recovery -> { };
    }
}
