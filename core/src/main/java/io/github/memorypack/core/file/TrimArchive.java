package io.github.memorypack.core.file;

import static java.nio.file.StandardOpenOption.READ;

import io.github.memorypack.core.EntryCodec;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The archive of one session's trimmed entries ({@code <id>.jsonl.trimmed}): every entry trim or
 * replace removes from the log is appended here first, forced, as the log's exact lines (checksums
 * included), so nothing is ever lost. Its last entry also says where indices continue once the log
 * is empty.
 */
final class TrimArchive {

    private final SessionFiles files;
    private final DurableFiles disk;
    private final TornTails tornTails;

    TrimArchive(SessionFiles files, DurableFiles disk, TornTails tornTails) {
        this.files = files;
        this.disk = disk;
        this.tornTails = tornTails;
    }

    /**
     * Appends the first {@code count} cached entries of {@code tail} to the archive, forced,
     * skipping those an earlier, interrupted trim already archived. The whole log must be loaded.
     */
    void archive(Lease lease, LogTail tail, int count) throws IOException {
        long until = archivedUntil(lease);
        long first = tail.entries.get(0).index();
        int from = (int) Math.max(0, Math.min(count, until - first));
        if (from == count) {
            return;
        }
        byte[] lines;
        try (FileChannel log = FileChannel.open(files.log, READ)) {
            lines = DurableFiles.read(log, tail.lineStart(from), tail.lineStart(count));
        }
        BasicFileAttributes archive = LogTail.attributes(files.archive);
        disk.writeAt(files.archive, archive == null ? 0 : archive.size(), lines, true);
    }

    /**
     * The index after the archive's last entry (0 without an archive). A torn archive tail (from a
     * trim cut short; those entries are still in the log) is ignored, and set aside first under an
     * exclusive lease.
     */
    long archivedUntil(Lease lease) throws IOException {
        long size;
        long end;
        try (FileChannel channel = FileChannel.open(files.archive, READ)) {
            size = channel.size();
            end = LogScan.lastNewline(channel, size) + 1;
        } catch (NoSuchFileException e) {
            return 0;
        }
        tornTails.repairArchive(lease, end, size);
        if (end == 0) {
            return 0;
        }
        byte[] line;
        long start;
        try (FileChannel channel = FileChannel.open(files.archive, READ)) {
            start = LogScan.lastNewline(channel, end - 1) + 1;
            line = DurableFiles.read(channel, start, end - 1);
        }
        try {
            return EntryCodec.decodeEntry(RecordLines.decode(line, 0, line.length).payload).index() + 1;
        } catch (IllegalArgumentException e) {
            throw LogScan.corrupt(files.archive, start, e.getMessage(), e);
        }
    }
}
