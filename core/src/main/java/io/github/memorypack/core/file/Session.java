package io.github.memorypack.core.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.READ;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.EntryCodec;
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
 * whether the cache is still right, so the cache never needs to be trusted blindly.
 *
 * <h2>Log format</h2>
 * One {@link EntryCodec} JSON line per entry, in index order. Every entry of an append but the
 * last starts with an extra field {@code "more":n} (n = entries of the same append after this one),
 * which {@code EntryCodec} ignores. It marks where an append ends, so an append cut short by a crash
 * is recognised as a whole and set aside, never half kept.
 */
final class Session {

    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);
    private static final String MORE = "{\"more\":";
    private static final int CHUNK = 64 * 1024;

    final SessionFiles files;
    private final Disk disk;

    // the log: entries of the first logLength bytes of the file identified by logKey, at logGeneration
    private long logGeneration = -1;
    private boolean logExists;
    private Object logKey;
    private long logLength;
    private final ArrayList<Entry> entries = new ArrayList<>();
    private long[] offsets = new long[16]; // offsets[i]: where the line of entries.get(i) starts
    private final Map<String, List<Entry>> byKey = new HashMap<>();
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
        List<Entry> earlier = idempotencyKey == null ? null : byKey.get(idempotencyKey);
        return earlier == null ? List.of() : List.copyOf(earlier);
    }

    List<Entry> read(Lease lease, long fromIndex, int maxCount) throws IOException {
        syncLog(lease);
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
        rewrite(lease, channel -> {
            try (FileChannel source = FileChannel.open(log, READ)) {
                long at = 0;
                while (at < keptLength) {
                    at += source.transferTo(keepFrom + at, keptLength - at, channel);
                }
            }
        }, kept, keptStarts, keptLength, next);
    }

    void replace(Lease lease, List<NewEntry> batch) throws IOException {
        syncLog(lease);
        List<Entry> fresh = newEntries(nextIndex(lease), lease.clock().instant(), batch, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 * fresh.size() + 1);
        long[] lineStarts = encode(fresh, 0, out);
        long next = nextIndex(lease) + fresh.size();
        if (!entries.isEmpty()) {
            archive(lease, entries.size());
        }
        rewrite(lease, channel -> Disk.writeFully(channel, ByteBuffer.wrap(out.toByteArray()), 0),
                fresh, lineStarts, out.size(), next);
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
            String json = Files.readString(files.state, UTF_8);
            try {
                read = EntryCodec.decodeState(json);
            } catch (IllegalArgumentException e) {
                throw new CorruptFileException(files.state, 1, "unreadable state (" + e.getMessage() + ")", e);
            }
        }
        state = read;
        stateExists = exists;
        stateKey = key;
        stateGeneration = lease.stateGeneration();
        return state;
    }

    Optional<SessionState> compareAndSetState(Lease lease, long expectedVersion, SessionState newState)
            throws IOException {
        if (state(lease).version() != expectedVersion) {
            return Optional.empty();
        }
        SessionState stored = newState.withVersion(expectedVersion + 1);
        byte[] json = EntryCodec.encodeState(stored).getBytes(UTF_8);
        disk.replaceAtomically(files.state, files.stateTemp,
                channel -> Disk.writeFully(channel, ByteBuffer.wrap(json), 0), lease::bumpState);
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
        logExists = false;
        logKey = null;
        logGeneration = lease.logGeneration();
        state = SessionState.EMPTY;
        stateExists = false;
        stateKey = null;
        stateGeneration = lease.stateGeneration();
    }

    // ------------------------------------------------------------------ reading the log

    /** Brings the cache up to date with the log file: nothing to do, new bytes to parse, or a full reload. */
    private void syncLog(Lease lease) throws IOException {
        BasicFileAttributes attributes = attributes(files.log);
        boolean exists = attributes != null;
        Object key = exists ? attributes.fileKey() : null;
        boolean unchanged = logGeneration == lease.logGeneration() && logExists == exists
                && Objects.equals(logKey, key) && (!exists || attributes.size() >= logLength);
        if (!unchanged) {
            resetLog();
        }
        logGeneration = lease.logGeneration();
        logExists = exists;
        logKey = key;
        if (exists && attributes.size() > logLength) {
            scan(lease, attributes.size());
        }
    }

    private void resetLog() {
        entries.clear();
        entries.trimToSize();
        offsets = new long[16];
        byKey.clear();
        logLength = 0;
        nextWhenEmpty = -1;
    }

    /**
     * Parses the bytes from {@code logLength} to {@code size}. Complete appends join the cache as
     * they are read. Whatever follows the last complete append — a partial line, an unparsable last
     * line, the lines of an append cut short — is a torn tail and is set aside. A bad line with a
     * complete line after it is corruption and fails the call.
     */
    private void scan(Lease lease, long size) throws IOException {
        LineParser parser = new LineParser(entries.size() + 1,
                entries.isEmpty() ? -1 : entries.get(entries.size() - 1).index());
        try (FileChannel channel = FileChannel.open(files.log, READ)) {
            ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(CHUNK, size - logLength));
            ByteArrayOutputStream partial = new ByteArrayOutputStream();
            long position = logLength;
            long lineStart = logLength;
            while (position < size) {
                chunk.clear();
                chunk.limit((int) Math.min(chunk.capacity(), size - position));
                int n = channel.read(chunk, position);
                if (n < 0) {
                    break;
                }
                byte[] bytes = chunk.array();
                int from = 0;
                for (int i = 0; i < n; i++) {
                    if (bytes[i] != '\n') {
                        continue;
                    }
                    String line;
                    if (partial.size() == 0) {
                        line = new String(bytes, from, i - from, UTF_8);
                    } else {
                        partial.write(bytes, from, i - from);
                        line = partial.toString(UTF_8);
                        partial.reset();
                    }
                    long end = position + i + 1;
                    parser.line(line, lineStart, end);
                    lineStart = end;
                    from = i + 1;
                }
                partial.write(bytes, from, n - from);
                position += n;
            }
        }
        if (logLength < size) {
            Instant now = lease.clock().instant();
            Path side = disk.setAside(files.log, logLength, now);
            Recovery recovery = new Recovery(files.sessionId, files.log, side, logLength, size - logLength,
                    entries.size() + 1L, now);
            LOG.warn("Set aside the torn tail of session '{}': {} bytes from line {} of {} moved to {} (left by a"
                    + " write that did not finish, e.g. a crash)", files.sessionId, size - logLength,
                    entries.size() + 1L, files.log, side);
            lease.recovered(recovery);
        }
    }

    /** Checks lines one by one and commits each complete append to the cache. */
    private final class LineParser {
        private long lineNumber;
        private long lastIndex;
        private final List<Entry> pending = new ArrayList<>();
        private final List<Long> pendingStarts = new ArrayList<>();
        private int expectedMore = -1;
        private long badLine = -1;
        private String badProblem;
        private Throwable badCause;

        LineParser(long firstLineNumber, long lastIndex) {
            this.lineNumber = firstLineNumber;
            this.lastIndex = lastIndex;
        }

        void line(String line, long start, long end) {
            if (badLine > 0) {
                throw new CorruptFileException(files.log, badLine, badProblem + "; complete lines follow it,"
                        + " so it is not a torn write", badCause);
            }
            Entry entry;
            int more;
            try {
                more = more(line);
                entry = EntryCodec.decodeEntry(line);
            } catch (IllegalArgumentException e) {
                // a torn tail if nothing but a partial line follows; corruption otherwise
                badLine = lineNumber++;
                badProblem = e.getMessage();
                badCause = e;
                return;
            }
            if (lastIndex >= 0 && entry.index() != lastIndex + 1) {
                throw new CorruptFileException(files.log, lineNumber,
                        "entry index " + entry.index() + " follows index " + lastIndex, null);
            }
            if (expectedMore >= 0 && more != expectedMore) {
                throw new CorruptFileException(files.log, lineNumber,
                        "an append announced " + expectedMore + " more entries, this line says " + more, null);
            }
            lastIndex = entry.index();
            lineNumber++;
            pending.add(entry);
            pendingStarts.add(start);
            if (more > 0) {
                expectedMore = more - 1;
                return;
            }
            for (int i = 0; i < pending.size(); i++) {
                add(pending.get(i), pendingStarts.get(i));
            }
            pending.clear();
            pendingStarts.clear();
            expectedMore = -1;
            logLength = end;
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
            String line = more == 0 ? json : MORE + more + "," + json.substring(1);
            out.writeBytes(line.getBytes(UTF_8));
            out.write('\n');
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
        for (int i = 0; i < kept.size(); i++) {
            add(kept.get(i), keptStarts[i]);
        }
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
     * exactly what the log held.
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
     * trim cut short; those entries are still in the log) is set aside first.
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
        if (end < size) {
            Instant now = lease.clock().instant();
            long lineNumber = countLines(end) + 1;
            Path side = disk.setAside(files.archive, end, now);
            LOG.warn("Set aside the torn tail of the trimmed-entries archive of session '{}': {} bytes from line {}"
                    + " of {} moved to {}", files.sessionId, size - end, lineNumber, files.archive, side);
            lease.recovered(new Recovery(files.sessionId, files.archive, side, end, size - end, lineNumber, now));
        }
        if (end == 0) {
            return 0;
        }
        String line;
        long start;
        try (FileChannel channel = FileChannel.open(files.archive, READ)) {
            start = lastNewline(channel, end - 1) + 1;
            line = new String(Disk.read(channel, start, end - 1), UTF_8);
        }
        try {
            return EntryCodec.decodeEntry(line).index() + 1;
        } catch (IllegalArgumentException e) {
            throw new CorruptFileException(files.archive, countLines(start) + 1, e.getMessage(), e);
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

    /** Number of lines of the archive before byte {@code limit} (only for error messages). */
    private long countLines(long limit) throws IOException {
        long lines = 0;
        try (FileChannel channel = FileChannel.open(files.archive, READ)) {
            for (long at = 0; at < limit; at += CHUNK) {
                for (byte b : Disk.read(channel, at, Math.min(limit, at + CHUNK))) {
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
