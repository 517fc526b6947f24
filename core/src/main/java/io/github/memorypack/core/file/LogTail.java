package io.github.memorypack.core.file;

import static java.nio.file.StandardOpenOption.READ;

import io.github.memorypack.core.Entry;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * This store instance's cached suffix of one session's log: the entries of the bytes
 * {@code [loadedFrom, logLength)} of the log file, with where each line starts and the idempotency
 * keys seen. {@link #sync} checks it against the file (the lease's log counter, the file's identity
 * and size) before every use, so it is never trusted blindly.
 *
 * <p>Opening a session reads only the log's last bytes (backwards from the end until at least one
 * complete append is found); calls that need older entries {@link #loadEarlier extend} it
 * backwards, doubling the bytes read each time. So reopening a session and reading its tail costs
 * the same at a thousand entries and at a million. Every line is checked ({@link LogScan}) when it
 * is first read; what an interrupted write left at the end goes to {@link TornTails}.
 */
final class LogTail {

    private static final long TAIL_WINDOW = 64 * 1024;

    private final SessionFiles files;
    private final TornTails tornTails;

    private long logGeneration = -1;
    private boolean loaded;
    private Object logKey;
    boolean logExists;
    long loadedFrom; // where the line of entries.get(0) starts; 0 once everything is loaded
    long logLength; // end of the last complete append
    private int firstMore; // "more" of the line at loadedFrom (to check it against the line before it)
    private boolean firstLegacy;
    boolean lastLegacy = true; // whether the last line has no checksum (true: a format 1 line may follow)
    final ArrayList<Entry> entries = new ArrayList<>();
    private long[] offsets = new long[16]; // offsets[i]: where the line of entries.get(i) starts
    final Map<String, List<Entry>> byKey = new HashMap<>(); // complete once loadedFrom == 0
    long nextWhenEmpty = -1; // next index while the log is empty; -1 until read from the archive

    LogTail(SessionFiles files, TornTails tornTails) {
        this.files = files;
        this.tornTails = tornTails;
    }

    /** Forgets everything cached; the next {@link #sync} reads the file again. */
    void invalidate() {
        logGeneration = -1;
    }

    /** Brings the cache up to date with the log file: nothing to do, new bytes to parse, or a reload of the tail. */
    void sync(Lease lease) throws IOException {
        BasicFileAttributes attributes = attributes(files.log);
        boolean exists = attributes != null;
        Object key = exists ? attributes.fileKey() : null;
        boolean unchanged = loaded && logGeneration == lease.logGeneration() && logExists == exists
                && Objects.equals(logKey, key) && (!exists || attributes.size() >= logLength);
        if (!unchanged) {
            reset();
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
                LogScan scan = new LogScan(files.log, true, entries.isEmpty() ? -1 : entries.get(entries.size() - 1).index(),
                        entries.isEmpty() ? -1 : 0, entries.isEmpty() ? null : lastLegacy).run(channel, logLength, size);
                for (int i = 0; i < scan.committed; i++) {
                    add(scan.entries.get(i), scan.starts[i]);
                }
                if (scan.committed > 0) {
                    lastLegacy = scan.legacy[scan.committed - 1];
                    logLength = scan.committedEnd;
                }
                tornTails.repairLog(lease, scan.tornAt, size);
            }
        }
    }

    /** Empties the cache (the next index too); the log is then as good as not read. */
    void reset() {
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
     * What follows the last complete append is a torn tail.
     */
    private void openTail(Lease lease, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(files.log, READ)) {
            for (long window = TAIL_WINDOW; ; window *= 2) {
                long from = size <= window ? 0 : LogScan.lineStartAfter(channel, size - window, size);
                if (from < 0) {
                    continue;
                }
                LogScan scan = new LogScan(files.log, true, -1, -1, null).run(channel, from, size);
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
                tornTails.repairLog(lease, scan.tornAt, size);
                return;
            }
        }
    }

    /** Loads the whole log (idempotency keys, trim, replace). */
    void loadAll() throws IOException {
        while (loadedFrom > 0) {
            loadEarlier();
        }
    }

    /** Loads at least as many bytes of the log before the cached suffix as it already holds (64 KiB at least). */
    void loadEarlier() throws IOException {
        try (FileChannel channel = FileChannel.open(files.log, READ)) {
            for (long window = Math.max(TAIL_WINDOW, logLength - loadedFrom); ; window *= 2) {
                long from = loadedFrom <= window ? 0 : LogScan.lineStartAfter(channel, loadedFrom - window, loadedFrom);
                if (from < 0 || from == loadedFrom) {
                    continue;
                }
                LogScan scan = new LogScan(files.log, false, -1, -1, null).run(channel, from, loadedFrom);
                int n = scan.committed;
                long firstIndex = entries.get(0).index();
                if (scan.entries.get(n - 1).index() + 1 != firstIndex) {
                    throw LogScan.corrupt(files.log, loadedFrom, "entry index " + firstIndex + " follows index "
                            + scan.entries.get(n - 1).index(), null);
                }
                int lastMore = scan.mores[n - 1];
                if (lastMore > 0 && firstMore != lastMore - 1) {
                    throw LogScan.corrupt(files.log, loadedFrom, "an append announced " + (lastMore - 1)
                            + " more entries, this line says " + firstMore, null);
                }
                if (firstLegacy && !scan.legacy[n - 1]) {
                    throw LogScan.corrupt(files.log, loadedFrom,
                            "a line without a checksum after lines with checksums", null);
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

    /** Adds an entry whose line starts at {@code lineStart} to the end of the cache. */
    void add(Entry entry, long lineStart) {
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

    /** Where the line of cached entry {@code i} starts ({@link #logLength} for {@code i == entries.size()}). */
    long lineStart(int i) {
        return i < entries.size() ? offsets[i] : logLength;
    }

    /** The cache after the log was written anew (by this lease) holding {@code kept}, the whole log. */
    void rewritten(Lease lease, List<Entry> kept, long[] keptStarts, long keptLength, long next) {
        reset();
        loaded = true;
        for (int i = 0; i < kept.size(); i++) {
            add(kept.get(i), keptStarts[i]);
        }
        loadedFrom = 0;
        logLength = keptLength;
        logExists = true;
        logGeneration = lease.logGeneration();
        nextWhenEmpty = next;
        identify();
    }

    /** The cache after the log file was first created by an append. */
    void created() {
        logExists = true;
        identify();
    }

    /** The cache after the session's files were deleted (by this lease). */
    void deleted(Lease lease) {
        reset();
        loaded = true;
        logExists = false;
        logKey = null;
        logGeneration = lease.logGeneration();
    }

    private void identify() {
        try {
            logKey = Files.readAttributes(files.log, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            logGeneration = -1; // written and durable; only the cache check is lost, so reload next time
        }
    }

    static BasicFileAttributes attributes(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
