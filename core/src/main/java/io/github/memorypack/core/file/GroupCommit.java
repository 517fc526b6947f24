package io.github.memorypack.core.file;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.NewEntry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Appending to one session's log. An append is queued, and the next thread to hold the session's
 * lock writes every queued append — its own and those of threads waiting for the lock — with one
 * write and one force (group commit), each append still a contiguous, all-or-nothing run of lines
 * in queue order, its idempotency key looked up in the whole log first.
 *
 * <h2>Log format</h2>
 * One {@link RecordLines record line} per entry, in index order, holding the {@link EntryCodec} JSON
 * of the entry. Every entry of an append but the last starts with an extra field {@code "more":n}
 * (n = entries of the same append after this one), which {@code EntryCodec} ignores. It marks where
 * an append ends, so an append cut short by a crash is recognised as a whole and set aside, never
 * half kept.
 */
final class GroupCommit {

    private final Session session;
    private final LogTail tail;
    private final DurableFiles disk;
    private final Queue<PendingAppend> queue = new ConcurrentLinkedQueue<>();

    GroupCommit(Session session, LogTail tail, DurableFiles disk) {
        this.session = session;
        this.tail = tail;
        this.disk = disk;
    }

    /** Queues an append; the next thread to hold the lock writes it (see {@link #appendQueued}). */
    void enqueue(PendingAppend append) {
        queue.add(append);
    }

    /** Takes back an append no thread has started to write; false if one already took it. */
    boolean dequeue(PendingAppend append) {
        return queue.remove(append);
    }

    /**
     * Writes every queued append with one write and one force. A failure fails every append of the
     * group, and none of them is visible.
     */
    void appendQueued(Lease lease) throws IOException {
        List<PendingAppend> group = new ArrayList<>();
        for (PendingAppend next = queue.poll(); next != null; next = queue.poll()) {
            group.add(next);
        }
        try {
            appendAll(lease, group);
        } catch (IOException | RuntimeException | Error e) {
            for (PendingAppend append : group) {
                append.fail(e);
            }
            throw e;
        }
    }

    private void appendAll(Lease lease, List<PendingAppend> group) throws IOException {
        tail.sync(lease);
        for (PendingAppend append : group) {
            if (append.key != null) {
                tail.loadAll(); // idempotency keys are looked up in the whole log
                break;
            }
        }
        long index = session.nextIndex(lease);
        Instant now = lease.clock().instant();
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        List<Entry> written = new ArrayList<>();
        List<long[]> lineStarts = new ArrayList<>();
        Map<String, List<Entry>> groupKeys = new HashMap<>();
        List<List<Entry>> results = new ArrayList<>(group.size());
        for (PendingAppend append : group) {
            List<Entry> earlier = append.key == null ? null
                    : tail.byKey.getOrDefault(append.key, groupKeys.get(append.key));
            if (earlier != null) {
                results.add(List.copyOf(earlier));
                continue;
            }
            List<Entry> stored = newEntries(index, now, append.batch, append.key);
            index += stored.size();
            lineStarts.add(encode(stored, tail.logLength, out));
            written.addAll(stored);
            if (append.key != null) {
                groupKeys.put(append.key, stored);
            }
            results.add(List.copyOf(stored));
        }
        if (out.size() > 0) {
            boolean create = !tail.logExists;
            disk.writeAt(session.files.log, tail.logLength, out.toByteArray(), true);
            int i = 0;
            for (long[] starts : lineStarts) {
                for (long start : starts) {
                    tail.add(written.get(i++), start);
                }
            }
            tail.logLength += out.size();
            tail.lastLegacy = false;
            if (create) {
                tail.created();
            }
        }
        for (int i = 0; i < group.size(); i++) {
            group.get(i).succeed(results.get(i));
        }
    }

    /** Looks up an idempotency key without writing anything (for an append of no entries). */
    List<Entry> appendedWith(Lease lease, String idempotencyKey) throws IOException {
        tail.sync(lease);
        if (idempotencyKey == null) {
            return List.of();
        }
        tail.loadAll();
        List<Entry> earlier = tail.byKey.get(idempotencyKey);
        return earlier == null ? List.of() : List.copyOf(earlier);
    }

    /** The entries a batch becomes from {@code firstIndex} on, stamped {@code now}. */
    static List<Entry> newEntries(long firstIndex, Instant now, List<NewEntry> batch, String idempotencyKey) {
        long index = firstIndex;
        List<Entry> stored = new ArrayList<>(batch.size());
        for (NewEntry e : batch) {
            stored.add(new Entry(index++, Entry.newId(), now, e.tokenCount(), e.message(), e.metadata(), idempotencyKey));
        }
        return stored;
    }

    /** Writes the lines of one append to {@code out}; returns where each line starts, counting from {@code base}. */
    static long[] encode(List<Entry> batch, long base, ByteArrayOutputStream out) {
        long[] starts = new long[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            starts[i] = base + out.size();
            String json = EntryCodec.encodeEntry(batch.get(i));
            int more = batch.size() - 1 - i;
            out.writeBytes(RecordLines.encode(more == 0 ? json : LogScan.MORE + more + "," + json.substring(1)));
        }
        return starts;
    }
}
