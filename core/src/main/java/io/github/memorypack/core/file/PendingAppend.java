package io.github.memorypack.core.file;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.io.IOException;
import java.util.List;

/**
 * One {@code append} call waiting to be written. Its fields are written by whichever thread writes
 * it and read by the calling thread, both while holding the session's in-process lock.
 */
final class PendingAppend {

    final List<NewEntry> batch;
    final String key;
    private boolean done;
    private List<Entry> result;
    private Throwable failure;

    PendingAppend(List<NewEntry> batch, String key) {
        this.batch = batch;
        this.key = key;
    }

    boolean isDone() {
        return done;
    }

    void succeed(List<Entry> stored) {
        result = stored;
        done = true;
    }

    void fail(Throwable cause) {
        failure = cause;
        done = true;
    }

    /** The stored entries, or the failure of the group this append was written with. */
    List<Entry> result() throws IOException {
        if (failure instanceof IOException) {
            throw (IOException) failure;
        }
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        }
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        return result;
    }
}
