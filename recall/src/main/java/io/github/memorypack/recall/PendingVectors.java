package io.github.memorypack.recall;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.function.BooleanSupplier;

/**
 * The messages of one session index whose text is indexed and whose embeddings are still to come,
 * by log index (always empty without a model), and how a batch of them is embedded. Used under the
 * index's lock, but for {@link #embed}.
 */
final class PendingVectors {

    /** Messages embedded per call to the model in the background. */
    static final int EMBED_BATCH = 64;
    /** Most sentences of one message embedded on their own. */
    static final int MAX_SENTENCES = 6;

    /**
     * A message whose text is indexed and whose embeddings are not yet: what the background embeds
     * next, with what its embeddings' document carries.
     */
    static final class Pending {
        final long entry;
        final long turn;
        final long time;
        final String text;
        final String request;
        final String attempt;

        /** The pending message of {@code entry}, of the turn that starts at {@code turn}, with its searchable text. */
        static Pending of(Entry entry, long turn, String text) {
            String request = entry.metadata().get(LogFormat.REQUEST);
            return new Pending(entry.index(), turn, entry.timestamp().toEpochMilli(), text, request,
                    request == null ? null : String.valueOf(entry.metadata().get(LogFormat.ATTEMPT)));
        }

        Pending(long entry, long turn, long time, String text, String request, String attempt) {
            this.entry = entry;
            this.turn = turn;
            this.time = time;
            this.text = text;
            this.request = request;
            this.attempt = attempt;
        }
    }

    private final TreeMap<Long, Pending> messages = new TreeMap<>();
    /** The last embedding in the background failed: queries do not wait for it until one succeeds. */
    boolean failed;
    /** How many batches of embeddings were added: a query waiting for some sees the background progress. */
    private long batches;

    void put(Pending message) {
        messages.put(message.entry, message);
    }

    /** True if {@code message} still awaits its embeddings (not deleted, nor embedded meanwhile). */
    boolean isCurrent(Pending message) {
        return messages.get(message.entry) == message;
    }

    void remove(Pending message) {
        messages.remove(message.entry);
    }

    void clear() {
        messages.clear();
    }

    /** Records that a batch of embeddings was added. */
    void added() {
        failed = false;
        batches++;
    }

    /** Drops the messages of the entries {@code from} to {@code to}, inclusive. */
    void drop(long from, long to) {
        if (from <= to) {
            messages.subMap(from, true, to, true).clear();
        }
    }

    /** Drops the messages of {@code request}'s attempts other than {@code attempt}. */
    void dropOtherAttempts(String request, String attempt) {
        messages.values().removeIf(p -> request.equals(p.request) && !attempt.equals(p.attempt));
    }

    /** The lowest log index awaiting its embeddings, or {@code next} when none does. */
    long first(long next) {
        return messages.isEmpty() ? next : messages.firstKey();
    }

    /** True if messages await their embeddings. */
    boolean isEmpty() {
        return messages.isEmpty();
    }

    /** The oldest messages awaiting their embeddings, at most {@link #EMBED_BATCH}. */
    List<Pending> batch() {
        List<Pending> batch = new ArrayList<>(Math.min(EMBED_BATCH, messages.size()));
        for (Pending message : messages.values()) {
            if (batch.size() == EMBED_BATCH) {
                break;
            }
            batch.add(message);
        }
        return batch;
    }

    /**
     * The embeddings of each message of the batch: its whole text's, then, for a text of several
     * sentences, each sentence's (at most {@link #MAX_SENTENCES}): a fact said in passing between other
     * sentences is found by its own sentence, not diluted by the rest. One call to the model; reads
     * nothing of the index, so it runs without the index's lock.
     */
    static List<float[][]> embed(EmbeddingModel model, List<Pending> batch) {
        List<Integer> counts = new ArrayList<>(batch.size());
        List<TextSegment> segments = new ArrayList<>(batch.size());
        String prefix = model instanceof QuietOnnxModel ? ((QuietOnnxModel) model).passagePrefix() : "";
        for (Pending message : batch) {
            List<String> parts = sentences(message.text);
            counts.add(1 + parts.size());
            segments.add(TextSegment.from(prefix + message.text));
            for (String part : parts) {
                segments.add(TextSegment.from(prefix + part));
            }
        }
        if (segments.isEmpty()) {
            return List.of();
        }
        List<Embedding> embeddings = segments.size() == 1
                ? List.of(model.embed(segments.get(0)).content())
                : model.embedAll(segments).content();
        List<float[][]> vectors = new ArrayList<>(batch.size());
        int at = 0;
        for (int count : counts) {
            float[][] rows = new float[count][];
            for (int r = 0; r < rows.length; r++) {
                rows[r] = embeddings.get(at++).vector();
            }
            vectors.add(rows);
        }
        return vectors;
    }

    /** True if a message of a turn before {@code before} awaits its embeddings. */
    boolean awaiting(long before) {
        if (messages.isEmpty()) {
            return false;
        }
        if (messages.firstKey() < before) {
            return true;
        }
        for (Pending message : messages.values()) {
            if (message.turn < before) {
                return true; // an answer logged after a newer turn's question
            }
        }
        return false;
    }

    /** The sentences of a text of more than one, each of three words or more (none for a single sentence). */
    static List<String> sentences(String text) {
        String[] parts = Turns.SENTENCE_END.split(text.strip());
        List<String> sentences = new ArrayList<>();
        if (parts.length < 2) {
            return sentences;
        }
        for (String part : parts) {
            if (part.split("\\s+").length >= 3 && sentences.size() < MAX_SENTENCES) {
                sentences.add(part);
            }
        }
        return sentences.size() < 2 ? List.of() : sentences;
    }

    /**
     * After a restart: the messages of the log from {@code from} to {@code next} (exclusive) whose text
     * is indexed, with their turns in {@code turns}, become pending again.
     */
    void requeue(SessionStore store, String sessionId, Map<Long, Long> turns, long from, long next) {
        long at = from;
        while (at < next && !turns.isEmpty()) {
            List<Entry> batch = store.read(sessionId, at, SessionIndex.READ_BATCH);
            if (batch.isEmpty()) {
                break;
            }
            for (Entry entry : batch) {
                Long entryTurn = turns.get(entry.index());
                String text = Turns.searchableText(entry.message());
                if (entryTurn != null && text != null) {
                    put(Pending.of(entry, entryTurn, text));
                }
            }
            at = batch.get(batch.size() - 1).index() + 1;
        }
    }

    /**
     * Waits on {@code embedded} (its lock released meanwhile) until no message of a turn before {@code before}
     * awaits its embeddings: as long as the background adds a batch at least every {@code stallNanos},
     * for at most {@code maxNanos} in all, and not after an embedding in the background failed, while
     * {@code scheduled} (a background task is queued or running) and not {@code closed}.
     *
     * @return true if nothing the query can return awaits its embeddings any more
     * @throws InterruptedIOException if the thread was interrupted while waiting
     */
    boolean await(long before, long stallNanos, long maxNanos, Condition embedded, BooleanSupplier scheduled,
                  BooleanSupplier closed) throws InterruptedIOException {
        long deadline = System.nanoTime() + maxNanos;
        long seen = batches;
        long stall = System.nanoTime() + stallNanos;
        while (awaiting(before)) {
            if (failed || !scheduled.getAsBoolean()) {
                return false;
            }
            long now = System.nanoTime();
            if (batches != seen) {
                seen = batches;
                stall = now + stallNanos;
            }
            long wait = Math.min(deadline, stall) - now;
            if (wait <= 0) {
                return false;
            }
            try {
                embedded.awaitNanos(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the recall index's embeddings");
            }
            if (closed.getAsBoolean()) {
                return false;
            }
        }
        return true;
    }
}
