package io.github.memorypack.core.file;

import io.github.memorypack.core.file.FileSessionStore.Recovery;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repairs what an interrupted write left at the end of a session's log or archive: under an
 * exclusive lease the bytes after the last complete record move to a side file ({@link DurableFiles#setAside})
 * and the file is cut back, with an SLF4J warning and a {@link Recovery} for the store's listener. A
 * read (shared lease) leaves the bytes where they are — they are not part of the file's content,
 * and the next write sets them aside — so reads never write and work on a read-only folder.
 */
final class TornTails {

    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);

    private final SessionFiles files;
    private final DurableFiles disk;

    TornTails(SessionFiles files, DurableFiles disk) {
        this.files = files;
        this.disk = disk;
    }

    /**
     * What an interrupted write left after the log's last complete append, from {@code tornAt} to
     * {@code size} ({@code tornAt < 0}: nothing): set aside under an exclusive lease, left for the
     * next write otherwise.
     */
    void repairLog(Lease lease, long tornAt, long size) throws IOException {
        if (tornAt < 0) {
            return;
        }
        if (!lease.exclusive()) {
            LOG.debug("Session '{}' has a torn tail at byte {} of {}; the next write sets it aside", files.sessionId,
                    tornAt, files.log);
            return;
        }
        Instant now = lease.clock().instant();
        long lineNumber = LogScan.lineNumber(files.log, tornAt);
        Path side = disk.setAside(files.log, tornAt, now);
        Recovery recovery = new Recovery(files.sessionId, files.log, side, tornAt, size - tornAt, lineNumber, now);
        LOG.warn("Set aside the torn tail of session '{}': {} bytes from line {} of {} moved to {} (left by a"
                + " write that did not finish, e.g. a crash)", files.sessionId, size - tornAt, lineNumber, files.log,
                side);
        lease.recovered(recovery);
    }

    /**
     * What a trim cut short left after the archive's last complete line, from {@code end} to
     * {@code size} (those entries are still in the log): set aside under an exclusive lease, ignored
     * otherwise.
     */
    void repairArchive(Lease lease, long end, long size) throws IOException {
        if (end >= size || !lease.exclusive()) {
            return;
        }
        Instant now = lease.clock().instant();
        long lineNumber = LogScan.lineNumber(files.archive, end);
        Path side = disk.setAside(files.archive, end, now);
        LOG.warn("Set aside the torn tail of the trimmed-entries archive of session '{}': {} bytes from line {}"
                + " of {} moved to {}", files.sessionId, size - end, lineNumber, files.archive, side);
        lease.recovered(new Recovery(files.sessionId, files.archive, side, end, size - end, lineNumber, now));
    }
}
