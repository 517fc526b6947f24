package io.github.memorypack.core.file;

import static java.nio.file.StandardOpenOption.READ;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One session's files and this store instance's cached view of them, the store's calls on one
 * session put together from the parts that do the work: {@link GroupCommit} (appending),
 * {@link LogTail} (the cached suffix of the log, read from the end), {@link LogScan} (reading and
 * checking lines), {@link TornTails} (setting aside what an interrupted write left),
 * {@link TrimArchive} (the archive of trimmed entries) and {@link StateFile}.
 *
 * <p>Every method must be called with the session's {@link Lease} held; the lease's counters plus
 * the files' identity and size tell whether the cache is still right, so the cache never needs to be
 * trusted blindly. Only a lease that {@link Lease#exclusive() holds the lock exclusively} changes
 * files; a read (shared lease) never writes, not even to repair a torn tail: it leaves that to the
 * next write.
 */
final class Session {

    final SessionFiles files;
    private final DurableFiles disk;
    private final LogTail tail;
    private final TrimArchive archive;
    private final StateFile state;
    private final GroupCommit commit;

    Session(SessionFiles files, DurableFiles disk) {
        this.files = files;
        this.disk = disk;
        TornTails tornTails = new TornTails(files, disk);
        this.tail = new LogTail(files, tornTails);
        this.archive = new TrimArchive(files, disk, tornTails);
        this.state = new StateFile(files, disk);
        this.commit = new GroupCommit(this, tail, disk);
    }

    /** Forgets everything cached; the next call reads the files again. */
    void invalidate() {
        tail.invalidate();
        state.invalidate();
    }

    // ------------------------------------------------------------------ log

    /** Queues an append; the next thread to hold the lock writes it (see {@link #appendQueued}). */
    void enqueue(PendingAppend append) {
        commit.enqueue(append);
    }

    /** Takes back an append no thread has started to write; false if one already took it. */
    boolean dequeue(PendingAppend append) {
        return commit.dequeue(append);
    }

    /** Group commit: writes every queued append (see {@link GroupCommit}). */
    void appendQueued(Lease lease) throws IOException {
        commit.appendQueued(lease);
    }

    /** Looks up an idempotency key without writing anything (for an append of no entries). */
    List<Entry> appendedWith(Lease lease, String idempotencyKey) throws IOException {
        return commit.appendedWith(lease, idempotencyKey);
    }

    List<Entry> read(Lease lease, long fromIndex, int maxCount) throws IOException {
        tail.sync(lease);
        List<Entry> entries = tail.entries;
        while (tail.loadedFrom > 0 && maxCount > 0 && entries.get(0).index() > fromIndex) {
            tail.loadEarlier();
        }
        int size = entries.size();
        if (size == 0) {
            return List.of();
        }
        long first = entries.get(0).index();
        int from = (int) Math.max(0, Math.min(size, fromIndex - first));
        int to = (int) Math.min(size, (long) from + maxCount);
        return List.copyOf(entries.subList(from, to));
    }

    List<Entry> readLast(Lease lease, int count) throws IOException {
        tail.sync(lease);
        List<Entry> entries = tail.entries;
        while (tail.loadedFrom > 0 && entries.size() < count) {
            tail.loadEarlier();
        }
        int size = entries.size();
        return List.copyOf(entries.subList(Math.max(0, size - count), size));
    }

    long nextIndex(Lease lease) throws IOException {
        tail.sync(lease);
        List<Entry> entries = tail.entries;
        if (!entries.isEmpty()) {
            return entries.get(entries.size() - 1).index() + 1;
        }
        if (tail.nextWhenEmpty < 0) {
            tail.nextWhenEmpty = archive.archivedUntil(lease);
        }
        return tail.nextWhenEmpty;
    }

    void trim(Lease lease, long beforeIndex) throws IOException {
        tail.sync(lease);
        tail.loadAll();
        List<Entry> entries = tail.entries;
        if (entries.isEmpty()) {
            return;
        }
        int drop = (int) Math.max(0, Math.min(entries.size(), beforeIndex - entries.get(0).index()));
        if (drop == 0) {
            return;
        }
        long next = nextIndex(lease);
        long keepFrom = tail.lineStart(drop);
        long keptLength = tail.logLength - keepFrom;
        List<Entry> kept = new ArrayList<>(entries.subList(drop, entries.size()));
        long[] keptStarts = new long[kept.size()];
        for (int i = 0; i < keptStarts.length; i++) {
            keptStarts[i] = tail.lineStart(drop + i) - keepFrom;
        }
        archive.archive(lease, tail, drop);
        Path log = files.log;
        boolean legacyAfter = kept.isEmpty() || tail.lastLegacy;
        rewrite(lease, channel -> {
            try (FileChannel source = FileChannel.open(log, READ)) {
                long at = 0;
                while (at < keptLength) {
                    at += source.transferTo(keepFrom + at, keptLength - at, channel);
                }
            }
        }, kept, keptStarts, keptLength, next);
        tail.lastLegacy = legacyAfter;
    }

    void replace(Lease lease, List<NewEntry> batch) throws IOException {
        tail.sync(lease);
        tail.loadAll();
        List<Entry> fresh = GroupCommit.newEntries(nextIndex(lease), lease.clock().instant(), batch, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 * fresh.size() + 1);
        long[] lineStarts = GroupCommit.encode(fresh, 0, out);
        long next = nextIndex(lease) + fresh.size();
        if (!tail.entries.isEmpty()) {
            archive.archive(lease, tail, tail.entries.size());
        }
        rewrite(lease, channel -> DurableFiles.writeFully(channel, ByteBuffer.wrap(out.toByteArray()), 0),
                fresh, lineStarts, out.size(), next);
        tail.lastLegacy = fresh.isEmpty();
    }

    /** Replaces the log with what {@code body} writes (whose entries are {@code kept}) and updates the cache. */
    private void rewrite(Lease lease, DurableFiles.Body body, List<Entry> kept, long[] keptStarts, long keptLength,
                         long next) throws IOException {
        disk.replaceAtomically(files.log, files.logTemp, body, lease::bumpLog);
        tail.rewritten(lease, kept, keptStarts, keptLength, next);
    }

    // ------------------------------------------------------------------ state

    SessionState state(Lease lease) throws IOException {
        return state.read(lease);
    }

    Optional<SessionState> compareAndSetState(Lease lease, long expectedVersion, SessionState newState)
            throws IOException {
        return state.compareAndSet(lease, expectedVersion, newState);
    }

    // ------------------------------------------------------------------ whole session

    void delete(Lease lease) throws IOException {
        lease.bumpLog();
        lease.bumpState();
        List<Path> doomed = new ArrayList<>(List.of(files.archive, files.logTemp, files.stateTemp));
        try (DirectoryStream<Path> all = Files.newDirectoryStream(files.directory,
                p -> files.isTornFile(p.getFileName().toString()))) {
            all.forEach(doomed::add);
        }
        doomed.add(files.state);
        doomed.add(files.log); // last: until it is gone the session is still listed, so a failed delete can be retried
        for (Path file : doomed) {
            Files.deleteIfExists(file);
        }
        disk.forceDirectory(files.directory);
        tail.deleted(lease);
        state.deleted(lease);
    }

    @Override
    public String toString() {
        return "Session{" + files.sessionId + ", cachedEntries=" + tail.entries.size() + '}';
    }
}
