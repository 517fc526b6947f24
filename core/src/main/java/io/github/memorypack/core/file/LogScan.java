package io.github.memorypack.core.file;

import static java.nio.file.StandardOpenOption.READ;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reading and checking a range of log lines. A scan checks lines one by one: each must decode and
 * check (length, checksum), indices must follow each other, and the {@code "more"} counts of an
 * append must count down. A line that does not check is damage ({@link CorruptRecordException}),
 * never skipped: only what an interrupted write can leave at the very end of the file — an
 * unterminated prefix of a line, zero bytes, the first lines of an append — is a torn tail, whose
 * start the scan reports in {@link #tornAt}.
 *
 * <p>The static helpers find line boundaries and line numbers in a file.
 */
final class LogScan {

    static final int CHUNK = 64 * 1024;
    static final String MORE = "{\"more\":";

    private final Path log;
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

    /**
     * A scan of lines of {@code log}; {@code tail} when the range ends at the end of the file. The
     * other arguments describe the line before the range ({@code -1}, {@code -1} and {@code null}
     * when unknown).
     */
    LogScan(Path log, boolean tail, long previousIndex, int previousMore, Boolean previousLegacy) {
        this.log = log;
        this.tail = tail;
        this.previousIndex = previousIndex;
        this.previousMore = previousMore;
        this.previousLegacy = previousLegacy;
    }

    /** Feeds the lines of {@code [from, to)} of {@code channel} to this scan, then what follows the last newline. */
    LogScan run(FileChannel channel, long from, long to) throws IOException {
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
                    line(bytes, start, i, lineStart, end);
                } else {
                    partial.write(bytes, start, i - start);
                    byte[] line = partial.toByteArray();
                    partial.reset();
                    line(line, 0, line.length, lineStart, end);
                }
                lineStart = end;
                start = i + 1;
            }
            partial.write(bytes, start, n - start);
            position += n;
        }
        if (partial.size() > 0) {
            unterminated(partial.toByteArray(), lineStart);
        }
        finish();
        return this;
    }

    private void line(byte[] bytes, int from, int to, long start, long end) {
        RecordLines.Line record;
        int more;
        Entry entry;
        try {
            record = RecordLines.decode(bytes, from, to);
            more = more(record.payload);
            entry = EntryCodec.decodeEntry(record.payload);
        } catch (IllegalArgumentException e) {
            throw corrupt(log, start, e.getMessage(), e);
        }
        if (record.legacy && Boolean.FALSE.equals(previousLegacy)) {
            throw corrupt(log, start, "a line without a checksum after lines with checksums", null);
        }
        if (previousIndex >= 0 && entry.index() != previousIndex + 1) {
            throw corrupt(log, start, "entry index " + entry.index() + " follows index " + previousIndex, null);
        }
        if (previousMore > 0 && more != previousMore - 1) {
            throw corrupt(log, start, "an append announced " + (previousMore - 1)
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

    private void unterminated(byte[] bytes, long start) {
        if (!tail || !RecordLines.isTornPrefix(bytes, 0, bytes.length, !Boolean.FALSE.equals(previousLegacy))) {
            throw corrupt(log, start, "the last line is damaged (it is not the beginning of a record"
                    + " that an interrupted write could leave)", null);
        }
        tornAt = committed < entries.size() ? starts[committed] : start;
    }

    private void finish() {
        if (tail && tornAt < 0 && committed < entries.size()) {
            tornAt = starts[committed]; // the first lines of an append, cut short between lines
        }
    }

    /** The {@code "more"} count a line's payload starts with (0 without one). */
    static int more(String line) {
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
    static CorruptRecordException corrupt(Path file, long offset, String problem, Throwable cause) {
        String line;
        try {
            line = "line " + lineNumber(file, offset);
        } catch (IOException e) {
            line = "line ?";
        }
        return new CorruptRecordException(file + ", " + line + " (byte " + offset + ")", problem
                + "; the file is left as it is: repair or remove the line by hand", cause);
    }

    /**
     * Position just after the first {@code '\n'} in {@code [at, limit)} of the file: the start of a
     * line. -1 if there is none.
     */
    static long lineStartAfter(FileChannel channel, long at, long limit) throws IOException {
        for (long from = at; from < limit; from += CHUNK) {
            byte[] bytes = DurableFiles.read(channel, from, Math.min(limit, from + CHUNK));
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    return from + i + 1;
                }
            }
        }
        return -1;
    }

    /** Position of the last {@code '\n'} before {@code limit}, or -1. */
    static long lastNewline(FileChannel channel, long limit) throws IOException {
        long end = limit;
        while (end > 0) {
            long start = Math.max(0, end - 8192);
            byte[] bytes = DurableFiles.read(channel, start, end);
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
    static long lineNumber(Path file, long offset) throws IOException {
        long lines = 1;
        try (FileChannel channel = FileChannel.open(file, READ)) {
            for (long at = 0; at < offset; at += CHUNK) {
                for (byte b : DurableFiles.read(channel, at, Math.min(offset, at + CHUNK))) {
                    if (b == '\n') {
                        lines++;
                    }
                }
            }
        }
        return lines;
    }
}
