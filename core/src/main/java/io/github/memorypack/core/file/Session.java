package io.github.memorypack.core.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.READ;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.file.FileSessionStore.Recovery;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's files and this store instance's cached view of them. Every method must be called
 * with the session's {@link Lease} held; the lease's counters plus the log's identity and size tell
 * whether the cache is still right, so the cache never needs to be trusted blindly. Only a lease
 * that {@link Lease#exclusive() holds the lock exclusively} changes files; a read (shared lease)
 * never writes, not even to repair a torn tail: it leaves that to the next write.
 *
 * <h2>Log format</h2>
 * One {@link Records record line} per entry, in index order, holding the {@link EntryCodec} JSON of
 * the entry. Every entry of an append but the last starts with an extra field {@code "more":n}
 * (n = entries of the same append after this one), which {@code EntryCodec} ignores. It marks where
 * an append ends, so an append cut short by a crash is recognised as a whole and set aside, never
 * half kept.
 *
 * <h2>Tail first</h2>
 * The cache holds a suffix of the log: opening a session reads only its last bytes (backwards from
 * the end until at least one complete append is found), and calls that need older entries — a
 * read from an earlier index, {@code readLast(n)} for a larger n, an idempotency key lookup, trim
 * and replace — extend it backwards, doubling the bytes read each time. So reopening a session and
 * reading its tail costs the same at a thousand entries and at a million. Every line is checked
 * when it is first read.
 */
final class Session {

    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);
    private static final String MORE = "{\"more\":";
    private static final int CHUNK = 64 * 1024;
    private static final long TAIL_WINDOW = 64 * 1024;

    final SessionFiles files;
    private final Disk disk;

    // the log: entries of the bytes [loadedFrom, logLength) of the file identified by logKey, at logGeneration
    private long logGeneration = -1;
    private boolean logExists;
    private Object logKey;
    private boolean loaded;
    private long loadedFrom; // where the line of entries.get(0) starts; 0 once everything is loaded
    private long logLength; // end of the last complete append
    private int firstMore; // "more" of the line at loadedFrom (to check it against the line before it)
    private boolean firstLegacy;
    private boolean lastLegacy = true; // whether the last line has no checksum (true: a format 1 line may follow)
    private final ArrayList<Entry> entries = new ArrayList<>();
    private long[] offsets = new long[16]; // offsets[i]: where the line of entries.get(i) starts
    private final Map<String, List<Entry>> byKey = new HashMap<>(); // complete once loadedFrom == 0
    private final Queue<PendingAppend> queue = new ConcurrentLinkedQueue<>();
    private long nextWhenEmpty = -1; // next index while the log is empty; -1 until read from the archive

    private long stateGeneration = -1;
    private boolean stateExists;
    private Object stateKey;
    private SessionState state = SessionState.EMPTY;

    Session(SessionFiles files, Disk disk) {
        this.files = files;
        this.disk = disk;
    }

    /** Forgets everything cached; the next call reads the files again. */
    void invalidate() {
        logGeneration = -1;
        stateGeneration = -1;
    }

    // ------------------------------------------------------------------ log

    /** Queues an append; the next thread to hold the lock writes it (see {@link #appendQueued}). */
    void enqueue(PendingAppend append) {
        queue.add(append);
    }

    /** Takes back an append no thread has started to write; false if one already took it. */
    boolean dequeue(PendingAppend append) {
        return queue.remove(append);
    }

    /**
     * Group commit: writes every queued append — its own and those of threads waiting for the lock —
     * with one write and one force, each append still a contiguous, all-or-nothing run of lines in
     * queue order. A failure fails every append of the group, and none of them is visible.
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
        syncLog(lease);
        for (PendingAppend append : group) {
            if (append.key != null) {
                loadAll(); // idempotency keys are looked up in the whole log
                break;
            }
        }
        long index = nextIndex(lease);
        Instant now = lease.clock().instant();
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        List<Entry> written = new ArrayList<>();
        List<long[]> lineStarts = new ArrayList<>();
        Map<String, List<Entry>> groupKeys = new HashMap<>();
        List<List<Entry>> results = new ArrayList<>(group.size());
        for (PendingAppend append : group) {
            List<Entry> earlier = append.key == null ? null : byKey.getOrDefault(append.key, groupKeys.get(append.key));
            if (earlier != null) {
                results.add(List.copyOf(earlier));
                continue;
            }
            List<Entry> stored = newEntries(index, now, append.batch, append.key);
            index += stored.size();
            lineStarts.add(encode(stored, logLength, out));
            written.addAll(stored);
            if (append.key != null) {
                groupKeys.put(append.key, stored);
            }
            results.add(List.copyOf(stored));
        }
        if (out.size() > 0) {
            boolean create = !logExists;
            disk.appendDurably(files.log, logLength, ByteBuffer.wrap(out.toByteArray()), create);
            int i = 0;
            for (long[] starts : lineStarts) {
                for (long start : starts) {
                    add(written.get(i++), start);
                }
            }
            logLength += out.size();
            lastLegacy = false;
            if (create) {
                logExists = true;
                identifyLog();
            }
        }
        for (int i = 0; i < group.size(); i++) {
            group.get(i).succeed(results.get(i));
        }
    }

    /** Looks up an idempotency key without writing anything (for an append of no entries). */
    List<Entry> appendedWith(Lease lease, String idempotencyKey) throws IOException {
        syncLog(lease);
        if (idempotencyKey == null) {
            return List.of();
        }
        loadAll();
        List<Entry> earlier = byKey.get(idempotencyKey);
        return earlier == null ? List.of() : List.copyOf(earlier);
    }

    List<Entry> read(Lease lease, long fromIndex, int maxCount) throws IOException {
        syncLog(lease);
        while (loadedFrom > 0 && maxCount > 0 && entries.get(0).index() > fromIndex) {
            loadEarlier();
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
        syncLog(lease);
        while (loadedFrom > 0 && entries.size() < count) {
            loadEarlier();
        }
        int size = entries.size();
        return List.copyOf(entries.subList(Math.max(0, size - count), size));
    }

    long nextIndex(Lease lease) throws IOException {
        syncLog(lease);
        if (!entries.isEmpty()) {
            return entries.get(entries.size() - 1).index() + 1;
        }
        if (nextWhenEmpty < 0) {
            nextWhenEmpty = archivedUntil(lease);
        }
        return nextWhenEmpty;
    }

    void trim(Lease lease, long beforeIndex) throws IOException {
        syncLog(lease);
        loadAll();
        if (entries.isEmpty()) {
            return;
        }
        int drop = (int) Math.max(0, Math.min(entries.size(), beforeIndex - entries.get(0).index()));
        if (drop == 0) {
            return;
        }
        long next = nextIndex(lease);
        long keepFrom = lineStart(drop);
        long keptLength = logLength - keepFrom;
        List<Entry> kept = new ArrayList<>(entries.subList(drop, entries.size()));
        long[] keptStarts = new long[kept.size()];
        for (int i = 0; i < keptStarts.length; i++) {
            keptStarts[i] = offsets[drop + i] - keepFrom;
        }
        archive(lease, drop);
        Path log = files.log;
        boolean legacyAfter = kept.isEmpty() || lastLegacy;
        rewrite(lease, channel -> {
            try (FileChannel source = FileChannel.open(log, READ)) {
                long at = 0;
                while (at < keptLength) {
                    at += source.transferTo(keepFrom + at, keptLength - at, channel);
                }
            }
        }, kept, keptStarts, keptLength, next);
        lastLegacy = legacyAfter;
    }

    void replace(Lease lease, List<NewEntry> batch) throws IOException {
        syncLog(lease);
        loadAll();
        List<Entry> fresh = newEntries(nextIndex(lease), lease.clock().instant(), batch, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 * fresh.size() + 1);
        long[] lineStarts = encode(fresh, 0, out);
        long next = nextIndex(lease) + fresh.size();
        if (!entries.isEmpty()) {
            archive(lease, entries.size());
        }
        rewrite(lease, channel -> Disk.writeFully(channel, ByteBuffer.wrap(out.toByteArray()), 0),
                fresh, lineStarts, out.size(), next);
        lastLegacy = fresh.isEmpty();
    }

    // ------------------------------------------------------------------ state

    SessionState state(Lease lease) throws IOException {
        BasicFileAttributes attributes = attributes(files.state);
        boolean exists = attributes != null;
        Object key = exists ? attributes.fileKey() : null;
        if (stateGeneration == lease.stateGeneration() && stateExists == exists && Objects.equals(stateKey, key)) {
            return state;
        }
        SessionState read = SessionState.EMPTY;
        if (exists) {
            read = decodeState(Files.readAllBytes(files.state));
        }
        state = read;
        stateExists = exists;
        stateKey = key;
        stateGeneration = lease.stateGeneration();
        return state;
    }

    /** The state file: one record line (format 2) or bare JSON (format 1). */
    private SessionState decodeState(byte[] bytes) {
        try {
            int end = bytes.length;
            if (end > 0 && bytes[0] != '{') {
                if (bytes[end - 1] != '\n') {
                    throw new IllegalArgumentException("the record has no newline");
                }
                end--;
            }
            return EntryCodec.decodeState(Records.decode(bytes, 0, end).payload);
        } catch (IllegalArgumentException e) {
            throw new CorruptRecordException(files.state + ", line 1", "unreadable state (" + e.getMessage() + ")", e);
        }
    }

    Optional<SessionState> compareAndSetState(Lease lease, long expectedVersion, SessionState newState)
            throws IOException {
        if (state(lease).version() != expectedVersion) {
            return Optional.empty();
        }
        SessionState stored = newState.withVersion(expectedVersion + 1);
        byte[] line = Records.encode(EntryCodec.encodeState(stored));
        disk.replaceAtomically(files.state, files.stateTemp,
                channel -> Disk.writeFully(channel, ByteBuffer.wrap(line), 0), lease::bumpState);
        state = stored;
        stateExists = true;
        stateGeneration = lease.stateGeneration();
        try {
            stateKey = Files.readAttributes(files.state, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            stateGeneration = -1; // stored and durable; only the cache check is lost, so re-read next time
        }
        return Optional.of(stored);
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
        resetLog();
        loaded = true;
        logExists = false;
        logKey = null;
        logGeneration = lease.logGeneration();
        state = SessionState.EMPTY;
        stateExists = false;
        stateKey = null;
        stateGeneration = lease.stateGeneration();
    }

    // ------------------------------------------------------------------ reading the log

    /** Brings the cache up to date with the log file: nothing to do, new bytes to parse, or a reload of the tail. */
    private void syncLog(Lease lease) throws IOException {
        BasicFileAttributes attributes = attributes(files.log);
        boolean exists = attributes != null;
        Object key = exists ? attributes.fileKey() : null;
        boolean unchanged = loaded && logGeneration == lease.logGeneration() && logExists == exists
                && Objects.equals(logKey, key) && (!exists || attributes.size() >= logLength);
        if (!unchanged) {
            resetLog();
        }
        logGeneration = lease.logGeneration();
        logExists = exists;
        logKey = key;
        loaded = true;
        if (!exists) {
            return;
        }
        long size = attributes.size();
        if (!unchanged) {
            openTail(lease, size);
        } else if (size > logLength) {
            try (FileChannel channel = FileChannel.open(files.log, READ)) {
                Scan scan = new Scan(true, entries.isEmpty() ? -1 : entries.get(entries.size() - 1).index(),
                        entries.isEmpty() ? -1 : 0, entries.isEmpty() ? null : lastLegacy);
                scan(channel, logLength, size, scan);
                for (int i = 0; i < scan.committed; i++) {
                    add(scan.entries.get(i), scan.starts[i]);
                }
                if (scan.committed > 0) {
                    lastLegacy = scan.legacy[scan.committed - 1];
                    logLength = scan.committedEnd;
                }
                tornTail(lease, scan.tornAt, size);
            }
        }
    }

    private void resetLog() {
        loaded = false;
        entries.clear();
        entries.trimToSize();
        offsets = new long[16];
        byKey.clear();
        loadedFrom = 0;
        logLength = 0;
        lastLegacy = true;
        nextWhenEmpty = -1;
    }

    /**
     * Loads the end of the log: the lines after the start of a line found in its last 64 KiB,
     * doubling the window until it holds a complete append and the start of any append cut short.
     * What follows the last complete append is a torn tail (see {@link #tornTail}).
     */
    private void openTail(Lease lease, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(files.log, READ)) {
            for (long window = TAIL_WINDOW; ; window *= 2) {
                long from = size <= window ? 0 : lineStartAfter(channel, size - window, size);
                if (from < 0) {
                    continue;
                }
                Scan scan = new Scan(true, -1, -1, null);
                scan(channel, from, size, scan);
                // from the middle of the file, an append cut short may have started before the window
                if (from > 0 && (scan.committed == 0 || scan.tornAt == from)) {
                    continue;
                }
                for (int i = 0; i < scan.committed; i++) {
                    add(scan.entries.get(i), scan.starts[i]);
                }
                loadedFrom = scan.committed == 0 ? 0 : from;
                logLength = scan.committed == 0 ? 0 : scan.committedEnd;
                if (scan.committed > 0) {
                    firstMore = scan.mores[0];
                    firstLegacy = scan.legacy[0];
                    lastLegacy = scan.legacy[scan.committed - 1];
                }
                tornTail(lease, scan.tornAt, size);
                return;
            }
        }
    }

    /** Loads the whole log (idempotency keys, trim, replace). */
    private void loadAll() throws IOException {
        while (loadedFrom > 0) {
            loadEarlier();
        }
    }

    /** Loads at least as many bytes of the log before the cached suffix as it already holds (64 KiB at least). */
    private void loadEarlier() throws IOException {
        try (FileChannel channel = FileChannel.open(files.log, READ)) {
            for (long window = Math.max(TAIL_WINDOW, logLength - loadedFrom); ; window *= 2) {
                long from = loadedFrom <= window ? 0 : lineStartAfter(channel, loadedFrom - window, loadedFrom);
                if (from < 0 || from == loadedFrom) {
                    continue;
                }
                Scan scan = new Scan(false, -1, -1, null);
                scan(channel, from, loadedFrom, scan);
                int n = scan.committed;
                long firstIndex = entries.get(0).index();
                if (scan.entries.get(n - 1).index() + 1 != firstIndex) {
                    throw corrupt(files.log, loadedFrom, "entry index " + firstIndex + " follows index "
                            + scan.entries.get(n - 1).index(), null);
                }
                int lastMore = scan.mores[n - 1];
                if (lastMore > 0 && firstMore != lastMore - 1) {
                    throw corrupt(files.log, loadedFrom, "an append announced " + (lastMore - 1)
                            + " more entries, this line says " + firstMore, null);
                }
                if (firstLegacy && !scan.legacy[n - 1]) {
                    throw corrupt(files.log, loadedFrom, "a line without a checksum after lines with checksums", null);
                }
                List<Entry> later = new ArrayList<>(entries);
                long[] laterOffsets = Arrays.copyOf(offsets, later.size());
                entries.clear();
                offsets = new long[n + later.size() + 16];
                entries.ensureCapacity(n + later.size());
                entries.addAll(scan.entries.subList(0, n));
                System.arraycopy(scan.starts, 0, offsets, 0, n);
                entries.addAll(later);
                System.arraycopy(laterOffsets, 0, offsets, n, later.size());
                loadedFrom = from;
                firstMore = scan.mores[0];
                firstLegacy = scan.legacy[0];
                if (from == 0) {
                    byKey.clear();
                    for (Entry entry : entries) {
                        entry.idempotencyKey().ifPresent(k -> byKey.computeIfAbsent(k, x -> new ArrayList<>(2)).add(entry));
                    }
                }
                return;
            }
        }
    }

    /**
     * What an interrupted write left after the last complete append, from {@code tornAt} to
     * {@code size} ({@code tornAt < 0}: nothing). Under an exclusive lease those bytes move to a side
     * file and the log is cut back; a read leaves them where they are (they are not part of the
     * log, and the next write sets them aside), so reads never write and work on a read-only folder.
     */
    private void tornTail(Lease lease, long tornAt, long size) throws IOException {
        if (tornAt < 0) {
            return;
        }
        if (!lease.exclusive()) {
            LOG.debug("Session '{}' has a torn tail at byte {} of {}; the next write sets it aside", files.sessionId,
                    tornAt, files.log);
            return;
        }
        Instant now = lease.clock().instant();
        long lineNumber = lineNumber(files.log, tornAt);
        Path side = disk.setAside(files.log, tornAt, now);
        Recovery recovery = new Recovery(files.sessionId, files.log, side, tornAt, size - tornAt, lineNumber, now);
        LOG.warn("Set aside the torn tail of session '{}': {} bytes from line {} of {} moved to {} (left by a"
                + " write that did not finish, e.g. a crash)", files.sessionId, size - tornAt, lineNumber, files.log,
                side);
        lease.recovered(recovery);
    }

    /**
     * Position just after the first {@code '\n'} in {@code [at, limit)} of the file: the start of a
     * line. -1 if there is none.
     */
    private static long lineStartAfter(FileChannel channel, long at, long limit) throws IOException {
        for (long from = at; from < limit; from += CHUNK) {
            byte[] bytes = Disk.read(channel, from, Math.min(limit, from + CHUNK));
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    return from + i + 1;
                }
            }
        }
        return -1;
    }

    /** Feeds the lines of {@code [from, to)} to {@code scan}, then what follows the last newline. */
    private void scan(FileChannel channel, long from, long to, Scan scan) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(1, to - from)));
        ByteArrayOutputStream partial = new ByteArrayOutputStream();
        long position = from;
        long lineStart = from;
        while (position < to) {
            chunk.clear();
            chunk.limit((int) Math.min(chunk.capacity(), to - position));
            int n = channel.read(chunk, position);
            if (n < 0) {
                break;
            }
            byte[] bytes = chunk.array();
            int start = 0;
            for (int i = 0; i < n; i++) {
                if (bytes[i] != '\n') {
                    continue;
                }
                long end = position + i + 1;
                if (partial.size() == 0) {
                    scan.line(bytes, start, i, lineStart, end);
                } else {
                    partial.write(bytes, start, i - start);
                    byte[] line = partial.toByteArray();
                    partial.reset();
                    scan.line(line, 0, line.length, lineStart, end);
                }
                lineStart = end;
                start = i + 1;
            }
            partial.write(bytes, start, n - start);
            position += n;
        }
        if (partial.size() > 0) {
            scan.unterminated(partial.toByteArray(), lineStart);
        }
        scan.finish();
    }

    /**
     * Checks lines one by one: each must decode and check (length, checksum), indices must follow each
     * other, and the {@code "more"} counts of an append must count down. A line that does not check
     * is damage ({@link CorruptRecordException}), never skipped: only what an interrupted write can
     * leave at the very end of the file — an unterminated prefix of a line, zero bytes, the first lines
     * of an append — is a torn tail.
     */
    private final class Scan {
        private final boolean tail; // the range ends at the end of the file, where a torn tail may be
        private long previousIndex;
        private int previousMore; // -1: unknown (the first line may be anywhere in an append)
        private Boolean previousLegacy; // null: unknown
        final List<Entry> entries = new ArrayList<>();
        long[] starts = new long[16];
        int[] mores = new int[16];
        boolean[] legacy = new boolean[16];
        int committed; // lines [0, committed) belong to complete appends (all lines when !tail)
        long committedEnd;
        long tornAt = -1;

        Scan(boolean tail, long previousIndex, int previousMore, Boolean previousLegacy) {
            this.tail = tail;
            this.previousIndex = previousIndex;
            this.previousMore = previousMore;
            this.previousLegacy = previousLegacy;
        }

        void line(byte[] bytes, int from, int to, long start, long end) {
            Records.Line record;
            int more;
            Entry entry;
            try {
                record = Records.decode(bytes, from, to);
                more = more(record.payload);
                entry = EntryCodec.decodeEntry(record.payload);
            } catch (IllegalArgumentException e) {
                throw corrupt(files.log, start, e.getMessage(), e);
            }
            if (record.legacy && Boolean.FALSE.equals(previousLegacy)) {
                throw corrupt(files.log, start, "a line without a checksum after lines with checksums", null);
            }
            if (previousIndex >= 0 && entry.index() != previousIndex + 1) {
                throw corrupt(files.log, start, "entry index " + entry.index() + " follows index " + previousIndex, null);
            }
            if (previousMore > 0 && more != previousMore - 1) {
                throw corrupt(files.log, start, "an append announced " + (previousMore - 1)
                        + " more entries, this line says " + more, null);
            }
            int i = entries.size();
            if (i == starts.length) {
                starts = Arrays.copyOf(starts, i * 2);
                mores = Arrays.copyOf(mores, i * 2);
                legacy = Arrays.copyOf(legacy, i * 2);
            }
            entries.add(entry);
            starts[i] = start;
            mores[i] = more;
            legacy[i] = record.legacy;
            previousIndex = entry.index();
            previousMore = more;
            previousLegacy = record.legacy;
            if (more == 0 || !tail) {
                committed = i + 1;
                committedEnd = end;
            }
        }

        void unterminated(byte[] bytes, long start) {
            if (!tail || !Records.isTornPrefix(bytes, 0, bytes.length, !Boolean.FALSE.equals(previousLegacy))) {
                throw corrupt(files.log, start, "the last line is damaged (it is not the beginning of a record"
                        + " that an interrupted write could leave)", null);
            }
            tornAt = committed < entries.size() ? starts[committed] : start;
        }

        void finish() {
            if (tail && tornAt < 0 && committed < entries.size()) {
                tornAt = starts[committed]; // the first lines of an append, cut short between lines
            }
        }
    }

    private static int more(String line) {
        if (!line.startsWith(MORE)) {
            return 0;
        }
        int comma = line.indexOf(',', MORE.length());
        try {
            int more = comma < 0 ? -1 : Integer.parseInt(line.substring(MORE.length(), comma));
            if (more < 1) {
                throw new IllegalArgumentException("bad \"more\" field");
            }
            return more;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad \"more\" field", e);
        }
    }

    /** A damaged record of {@code file} whose line starts at byte {@code offset}. */
    private static CorruptRecordException corrupt(Path file, long offset, String problem, Throwable cause) {
        String line;
        try {
            line = "line " + lineNumber(file, offset);
        } catch (IOException e) {
            line = "line ?";
        }
        return new CorruptRecordException(file + ", " + line + " (byte " + offset + ")", problem
                + "; the file is left as it is: repair or remove the line by hand", cause);
    }

    // ------------------------------------------------------------------ writing the log

    private static List<Entry> newEntries(long firstIndex, Instant now, List<NewEntry> batch, String idempotencyKey) {
        long index = firstIndex;
        List<Entry> stored = new ArrayList<>(batch.size());
        for (NewEntry e : batch) {
            stored.add(new Entry(index++, Entry.newId(), now, e.tokenCount(), e.message(), e.metadata(), idempotencyKey));
        }
        return stored;
    }

    /** Writes the lines of one append to {@code out}; returns where each line starts, counting from {@code base}. */
    private static long[] encode(List<Entry> batch, long base, ByteArrayOutputStream out) {
        long[] starts = new long[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            starts[i] = base + out.size();
            String json = EntryCodec.encodeEntry(batch.get(i));
            int more = batch.size() - 1 - i;
            out.writeBytes(Records.encode(more == 0 ? json : MORE + more + "," + json.substring(1)));
        }
        return starts;
    }

    private void add(Entry entry, long lineStart) {
        int i = entries.size();
        if (i == offsets.length) {
            offsets = Arrays.copyOf(offsets, i * 2);
        }
        offsets[i] = lineStart;
        entries.add(entry);
        if (i == 0) {
            loadedFrom = lineStart;
        }
        entry.idempotencyKey().ifPresent(k -> byKey.computeIfAbsent(k, x -> new ArrayList<>(2)).add(entry));
    }

    private long lineStart(int i) {
        return i < entries.size() ? offsets[i] : logLength;
    }

    /** Replaces the log with what {@code body} writes (whose entries are {@code kept}) and updates the cache. */
    private void rewrite(Lease lease, Disk.Body body, List<Entry> kept, long[] keptStarts, long keptLength,
                         long next) throws IOException {
        disk.replaceAtomically(files.log, files.logTemp, body, lease::bumpLog);
        resetLog();
        loaded = true;
        for (int i = 0; i < kept.size(); i++) {
            add(kept.get(i), keptStarts[i]);
        }
        loadedFrom = 0;
        logLength = keptLength;
        logExists = true;
        logGeneration = lease.logGeneration();
        nextWhenEmpty = next;
        identifyLog();
    }

    private void identifyLog() {
        try {
            logKey = Files.readAttributes(files.log, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            logGeneration = -1; // written and durable; only the cache check is lost, so reload next time
        }
    }

    // ------------------------------------------------------------------ the archive of trimmed entries

    /**
     * Appends the first {@code count} cached entries to the archive, forced, skipping those an
     * earlier, interrupted trim already archived. The raw log lines are copied, so the archive holds
     * exactly what the log held (checksums included). The whole log must be loaded.
     */
    private void archive(Lease lease, int count) throws IOException {
        long until = archivedUntil(lease);
        long first = entries.get(0).index();
        int from = (int) Math.max(0, Math.min(count, until - first));
        if (from == count) {
            return;
        }
        byte[] lines;
        try (FileChannel log = FileChannel.open(files.log, READ)) {
            lines = Disk.read(log, lineStart(from), lineStart(count));
        }
        BasicFileAttributes archive = attributes(files.archive);
        disk.appendDurably(files.archive, archive == null ? 0 : archive.size(), ByteBuffer.wrap(lines),
                archive == null);
    }

    /**
     * The index after the archive's last entry (0 without an archive). A torn archive tail (from a
     * trim cut short; those entries are still in the log) is ignored, and set aside first under an
     * exclusive lease.
     */
    private long archivedUntil(Lease lease) throws IOException {
        long size;
        long end;
        try (FileChannel channel = FileChannel.open(files.archive, READ)) {
            size = channel.size();
            end = lastNewline(channel, size) + 1;
        } catch (NoSuchFileException e) {
            return 0;
        }
        if (end < size && lease.exclusive()) {
            Instant now = lease.clock().instant();
            long lineNumber = lineNumber(files.archive, end);
            Path side = disk.setAside(files.archive, end, now);
            LOG.warn("Set aside the torn tail of the trimmed-entries archive of session '{}': {} bytes from line {}"
                    + " of {} moved to {}", files.sessionId, size - end, lineNumber, files.archive, side);
            lease.recovered(new Recovery(files.sessionId, files.archive, side, end, size - end, lineNumber, now));
        }
        if (end == 0) {
            return 0;
        }
        byte[] line;
        long start;
        try (FileChannel channel = FileChannel.open(files.archive, READ)) {
            start = lastNewline(channel, end - 1) + 1;
            line = Disk.read(channel, start, end - 1);
        }
        try {
            return EntryCodec.decodeEntry(Records.decode(line, 0, line.length).payload).index() + 1;
        } catch (IllegalArgumentException e) {
            throw corrupt(files.archive, start, e.getMessage(), e);
        }
    }

    /** Position of the last {@code '\n'} before {@code limit}, or -1. */
    private static long lastNewline(FileChannel channel, long limit) throws IOException {
        long end = limit;
        while (end > 0) {
            long start = Math.max(0, end - 8192);
            byte[] bytes = Disk.read(channel, start, end);
            for (int i = bytes.length - 1; i >= 0; i--) {
                if (bytes[i] == '\n') {
                    return start + i;
                }
            }
            end = start;
        }
        return -1;
    }

    /** 1-based number of the line of {@code file} that starts at byte {@code offset} (for messages only: reads up to it). */
    private static long lineNumber(Path file, long offset) throws IOException {
        long lines = 1;
        try (FileChannel channel = FileChannel.open(file, READ)) {
            for (long at = 0; at < offset; at += CHUNK) {
                for (byte b : Disk.read(channel, at, Math.min(offset, at + CHUNK))) {
                    if (b == '\n') {
                        lines++;
                    }
                }
            }
        }
        return lines;
    }

    private static BasicFileAttributes attributes(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "Session{" + files.sessionId + ", cachedEntries=" + entries.size() + '}';
    }
}
