package io.github.memorypack.recall;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embeds, off the request path, the messages a catch-up indexed by their text: one daemon thread per
 * retriever, at most one task per session index queued or running (a task drains its index's pending
 * messages, {@link SessionIndex#EMBED_BATCH} at a time), a bounded queue. The model runs without the
 * index's lock; only adding the embeddings takes it, briefly.
 */
final class BackgroundEmbedder {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundEmbedder.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** How long {@link #close()} lets a running batch finish. */
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final ThreadPoolExecutor executor;
    private volatile boolean closing;

    BackgroundEmbedder(int queueCapacity) {
        executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queueCapacity),
                task -> {
                    Thread thread = new Thread(task, "memory-pack-recall-embedder-" + THREADS.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * Queues the embedding of the index's pending messages, unless a task for it is queued or running.
     * The caller holds the index's lock.
     *
     * @return false if the queue is full or the embedder closed: the caller embeds them itself
     */
    boolean schedule(SessionIndex index) {
        if (index.scheduled || !index.hasPendingVectors()) {
            return true;
        }
        if (closing) {
            return false;
        }
        index.scheduled = true;
        try {
            executor.execute(() -> drain(index));
            return true;
        } catch (RejectedExecutionException e) {
            index.scheduled = false;
            return false;
        }
    }

    private void drain(SessionIndex index) {
        while (true) {
            List<SessionIndex.Pending> batch;
            index.lock.lock();
            try {
                batch = index.closed || closing ? List.of() : index.pendingBatch();
                if (batch.isEmpty()) {
                    index.scheduled = false;
                    return;
                }
            } finally {
                index.lock.unlock();
            }
            List<float[][]> vectors;
            try {
                vectors = index.embed(batch);
            } catch (RuntimeException e) {
                failed(index, e);
                return;
            }
            index.lock.lock();
            try {
                if (!index.closed) {
                    index.addVectors(batch, vectors);
                }
            } catch (IOException | RuntimeException e) {
                index.scheduled = false;
                index.embeddingFailed();
                LOG.warn("recall could not add embeddings to an index ({}); the next query finds out", e.toString());
                return;
            } finally {
                index.lock.unlock();
            }
        }
    }

    private static void failed(SessionIndex index, RuntimeException e) {
        index.lock.lock();
        try {
            index.scheduled = false;
            index.embeddingFailed();
        } finally {
            index.lock.unlock();
        }
        LOG.warn("recall's embedding model failed in the background ({}); the turns it did not embed are found by"
                + " their words until a later query or update() embeds them", e.toString());
    }

    /** Stops taking tasks, lets a running batch finish (bounded) and stops the thread. */
    void close() {
        closing = true;
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
