package io.github.memorypack.recall;

import dev.langchain4j.model.embedding.EmbeddingModel;
import io.github.memorypack.core.SessionStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A retriever's open session indexes: at most {@link RecallContentRetriever#MAX_OPEN_SESSIONS}, the least
 * recently used closed (and committed) first. Thread-safe.
 */
final class OpenIndexes {

    private static final Logger LOG = LoggerFactory.getLogger(RecallContentRetriever.class);

    private final SessionStore store;
    private final EmbeddingModel model;
    private final Path indexDirectory;
    /** What identifies the model's vectors in an index; for a given model, found when the first index opens. */
    private String modelKey;
    private final Map<String, SessionIndex> open = new LinkedHashMap<>(16, 0.75f, true);
    /** Indexes evicted from {@link #open} and not closed yet, by session id (guarded by {@link #open}). */
    private final Map<String, SessionIndex> closing = new HashMap<>();
    private boolean closed;

    OpenIndexes(SessionStore store, EmbeddingModel model, String modelKey, Path indexDirectory) {
        this.store = store;
        this.model = model;
        this.modelKey = modelKey;
        this.indexDirectory = indexDirectory;
    }

    /**
     * The open index of the session, made when it is not open; making a 65th closes the least recently
     * used one. Cheap, under this set's monitor: the new index's files are opened by its first use, under
     * its own lock ({@link SessionIndex#openFiles}), so a slow disk holds up that session only.
     *
     * @throws IllegalStateException if the retriever is closed
     */
    SessionIndex get(String sessionId) {
        while (true) {
            SessionIndex evicted = null;
            String evictedId = null;
            SessionIndex stillClosing;
            SessionIndex index;
            synchronized (open) {
                if (closed) {
                    throw new IllegalStateException("this RecallContentRetriever is closed");
                }
                index = open.get(sessionId);
                if (index != null && !index.closed) {
                    return index;
                }
                stillClosing = closing.get(sessionId);
                if (stillClosing == null) {
                    if (modelKey == null) {
                        modelKey = RecallContentRetriever.modelKey(model); // may ask a remote model its dimension: not at build()
                    }
                    index = new SessionIndex(sessionId, store, model, modelKey,
                            indexDirectory == null ? null : indexDirectory.resolve(sessionId));
                    open.put(sessionId, index);
                    if (open.size() > RecallContentRetriever.MAX_OPEN_SESSIONS) {
                        Iterator<Map.Entry<String, SessionIndex>> eldest = open.entrySet().iterator();
                        Map.Entry<String, SessionIndex> entry = eldest.next();
                        evictedId = entry.getKey();
                        evicted = entry.getValue();
                        eldest.remove();
                        closing.put(evictedId, evicted);
                    }
                }
            }
            if (stillClosing != null) {
                // evicted, and its close waits for a query still running on it: the index's files (and, on
                // disk, its lock) are free only once it is closed, so close it here (once it is free) and
                // open it again; opening it meanwhile would find it locked and index the session in memory
                closeEvicted(sessionId, stillClosing);
                continue;
            }
            if (evicted != null) {
                if (!evicted.persistent() && WARNED_IN_MEMORY_EVICTION.compareAndSet(false, true)) {
                    LOG.warn("More than {} sessions used recall through one retriever with in-memory indexes: the least"
                            + " recently used session's index was dropped and will be rebuilt from its log (every message"
                            + " embedded again) when it is next queried. For that many active sessions, set"
                            + " indexDirectory(…). (Logged once.)", RecallContentRetriever.MAX_OPEN_SESSIONS);
                }
                closeEvicted(evictedId, evicted);
            }
            return index;
        }
    }

    /** Closes (and commits) an evicted index under its lock, then forgets it. */
    private void closeEvicted(String sessionId, SessionIndex evicted) {
        try {
            close(evicted);
        } finally {
            synchronized (open) {
                closing.remove(sessionId, evicted);
            }
        }
    }

    private static final AtomicBoolean WARNED_IN_MEMORY_EVICTION = new AtomicBoolean();

    /** Closes (and commits) one index under its lock. */
    static void close(SessionIndex index) {
        index.lock.lock();
        try {
            index.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            index.lock.unlock();
        }
    }

    /** Closes the set: later {@link #get} calls fail; returns the indexes that were open, for the caller to close. */
    List<SessionIndex> closeAll() {
        synchronized (open) {
            closed = true;
            List<SessionIndex> indexes = new ArrayList<>(open.values());
            open.clear();
            return indexes;
        }
    }

    /** The model's key once known, else its class. */
    String describeModel() {
        synchronized (open) {
            return modelKey != null ? modelKey : model.getClass().getName();
        }
    }
}
