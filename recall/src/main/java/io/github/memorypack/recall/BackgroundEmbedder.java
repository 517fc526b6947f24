package io.github.memorypack.recall;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embeds, off the request path, the messages a catch-up indexed by their text: one daemon thread per
 * retriever, at most one task per session index queued or running (a task drains its index's pending
 * messages, {@link PendingVectors#EMBED_BATCH} at a time), a bounded queue. The model runs without the
 * index's lock; only adding the embeddings takes it, briefly.
 *
 * <p>A task starts {@value #DEFER_MILLIS} ms after the query that queued it, unless a query waits for it
 * (then at once): the query's request goes on to call the chat model, and an embedding woken at once
 * takes the core from it on a busy machine (measured: the request path's catch-up waited for about an
 * embedding's time at p50, with 0.1 ms of its own CPU time). Started later, it runs while the request
 * waits for the model's answer.
 */
final class BackgroundEmbedder {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundEmbedder.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** How long {@link #close()} lets a running batch finish. */
    private static final long CLOSE_WAIT_SECONDS = 10;

    /** How long after the query that queued it a task starts, when no query waits for it. */
    static final long DEFER_MILLIS = 20;

    private final ScheduledThreadPoolExecutor executor;
    private final int queueCapacity;
    private volatile boolean closing;

    BackgroundEmbedder(int queueCapacity) {
        this.queueCapacity = queueCapacity;
        executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "memory-pack-recall-embedder-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    /**
     * Queues the embedding of the index's pending messages, unless a task for it is queued or running.
     * The caller holds the index's lock.
     *
     * @return false if the queue is full or the embedder closed: the caller embeds them itself
     */
    boolean schedule(SessionIndex index, boolean now) {
        if (!index.hasPendingVectors()) {
            return true;
        }
        if (index.scheduled) {
            Future<?> task = index.embedding;
            // a deferred task a query now waits for: started at once instead (unless it already runs)
            if (!now || task == null || !task.cancel(false)) {
                return true;
            }
        } else if (executor.getQueue().size() >= queueCapacity) {
            return false;
        }
        if (closing) {
            index.scheduled = false;
            return false;
        }
        index.scheduled = true;
        try {
            index.embedding = executor.schedule(() -> drain(index), now ? 0 : DEFER_MILLIS, TimeUnit.MILLISECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            index.scheduled = false;
            index.embedding = null;
            return false;
        }
    }

    private void drain(SessionIndex index) {
        while (true) {
            List<PendingVectors.Pending> batch;
            index.lock.lock();
            try {
                batch = index.closed || closing ? List.of() : index.pendingBatch();
                index.embedding = null; // running: no longer cancellable
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
