package io.github.memorypack.recall;

import io.github.memorypack.core.SessionIds;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileLockInterruptionException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import io.github.memorypack.core.SessionIds;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.NRTCachingDirectory;
import org.apache.lucene.util.ThreadInterruptedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lucene files of one session's recall index — directory, writer and searchers, on disk or in
 * memory — and how they are opened: a persistent index that cannot be opened (damaged, another format
 * or model) is wiped and created anew, one locked by another process is kept in memory for this one.
 * What the index holds, and its position in the log, are {@link SessionIndex}'s.
 */
final class IndexFiles {

    private static final Logger LOG = LoggerFactory.getLogger(SessionIndex.class);

    /** Where an opened index starts reading the log. */
    interface Position {
        /** Continues from the last commit's user data. */
        void restore(Map<String, String> data);

        /** Starts from the beginning of the log (a new, empty index); commits that when on disk. */
        void reset() throws IOException;
    }

    private final String sessionId;
    private final Path path;
    Directory directory;
    IndexWriter writer;
    SearcherManager searchers;
    boolean persistent;

    /** The files of session {@code sessionId}'s index in {@code path}, or in memory when {@code null}. */
    IndexFiles(String sessionId, Path path) {
        this.sessionId = sessionId;
        this.path = path;
    }

    /** True if the files are to live in a folder (not in memory); whether they do once open is {@link #persistent}. */
    boolean onDisk() {
        return path != null;
    }

    /**
     * Opens the files and tells {@code position} where to start: from the last commit when it is
     * {@code current} (this format and model), else from the beginning.
     *
     * @throws UncheckedIOException or a runtime exception if interrupted (a cancelled request: the files
     *                              are closed, not at fault, and the thread's interrupt flag is set)
     */
    void open(Supplier<IndexWriterConfig> config, Predicate<Map<String, String>> current, Position position) {
        if (path == null) {
            openInMemory(config, position);
            return;
        }
        try {
            Files.createDirectories(path);
            directory = new NRTCachingDirectory(FSDirectory.open(path), 8.0, 64.0);
            Map<String, String> data = verifiedCommitData(directory);
            if (data != null && !current.test(data)) {
                LOG.info("recall index of session {} was built with another format or model; rebuilding it from the log",
                        sessionId);
                data = null;
            }
            writer = new IndexWriter(directory, config.get().setOpenMode(data == null
                    ? IndexWriterConfig.OpenMode.CREATE : IndexWriterConfig.OpenMode.CREATE_OR_APPEND));
            searchers = new SearcherManager(writer, null);
            persistent = true;
            if (data != null) {
                position.restore(data);
            } else {
                position.reset();
            }
        } catch (LockObtainFailedException e) {
            LOG.warn("recall index {} is in use by another process or another retriever on the same folder (share one"
                    + " retriever per store); session {} gets an in-memory index in this one",
                    path, sessionId);
            close();
            openInMemory(config, position);
        } catch (IOException | RuntimeException e) {
            if (interrupted(e)) {
                // a cancelled request: the files are not at fault; the next use opens them again
                close();
                Thread.currentThread().interrupt();
                throw e instanceof IOException ? new UncheckedIOException("opening the recall index " + path
                        + " was interrupted", (IOException) e) : (RuntimeException) e;
            }
            LOG.warn("recall index {} of session {} could not be opened ({}); rebuilding it from the log",
                    path, sessionId, e.toString());
            close();
            wipe();
            try {
                directory = new NRTCachingDirectory(FSDirectory.open(path), 8.0, 64.0);
                writer = new IndexWriter(directory, config.get().setOpenMode(IndexWriterConfig.OpenMode.CREATE));
                searchers = new SearcherManager(writer, null);
                persistent = true;
                position.reset();
            } catch (IOException again) {
                throw new UncheckedIOException("could not create the recall index " + path, again);
            }
        }
    }

    /**
     * The user data of the index's last commit after checking every file's checksum, or {@code null}
     * when there is no index yet.
     */
    private static Map<String, String> verifiedCommitData(Directory directory) throws IOException {
        if (!DirectoryReader.indexExists(directory)) {
            return null;
        }
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                leaf.reader().checkIntegrity();
            }
            return new HashMap<>(reader.getIndexCommit().getUserData());
        }
    }

    private void openInMemory(Supplier<IndexWriterConfig> config, Position position) {
        try {
            directory = new ByteBuffersDirectory();
            writer = new IndexWriter(directory, config.get());
            searchers = new SearcherManager(writer, null);
            persistent = false;
            position.reset();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Releases the files without committing (a failure closing them is logged, not thrown). */
    void close() {
        for (Closeable closeable : new Closeable[] {searchers, writer, directory}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("closing the recall index of session {}: {}", sessionId, e.toString());
                }
            }
        }
        searchers = null;
        writer = null;
        directory = null;
    }

    /** Deletes the index folder's files (a damaged index); the folder itself stays. */
    void wipe() {
        try {
            deleteFiles(path);
        } catch (IOException e) {
            throw new UncheckedIOException("could not clear the damaged recall index " + path, e);
        }
    }

    /**
     * True if the folder holds a Lucene index and nothing else: only files, named as Lucene names them
     * ({@code segments_N}, {@code pending_segments_N}, {@code write.lock}, {@code _…} codec files), a
     * {@code segments_N} among them.
     */
    static boolean isIndexFolder(Path folder) throws IOException {
        boolean segments = false;
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || !(name.startsWith("segments_")
                        || name.startsWith("pending_segments_") || name.equals("write.lock") || name.startsWith("_"))) {
                    return false;
                }
                segments |= name.startsWith("segments_");
            }
        }
        return segments;
    }

    /** Deletes the files of an index folder (an index keeps no subfolders); the folder itself stays. */
    static void deleteFiles(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * True if the thread was interrupted or the failure came from an interrupt (Lucene's and NIO's
     * interrupted operations close what they were using, and Lucene may clear the thread's flag).
     */
    static boolean interrupted(Exception e) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof InterruptedException || cause instanceof ClosedByInterruptException
                    || cause instanceof FileLockInterruptionException || cause instanceof InterruptedIOException
                    || cause instanceof ThreadInterruptedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Removes index folders of sessions the store no longer has (deleted while no retriever was open).
     * Only folders that hold nothing but a Lucene index are touched: the index directory may be shared.
     */
    static void dropDeletedSessions(Path indexDirectory, Collection<String> storeSessions) {
        if (!Files.isDirectory(indexDirectory)) {
            return;
        }
        Set<String> sessions = new HashSet<>(storeSessions);
        try (Stream<Path> folders = Files.list(indexDirectory)) {
            for (Path folder : (Iterable<Path>) folders::iterator) {
                String name = folder.getFileName().toString();
                if (Files.isDirectory(folder) && SessionIds.isValid(name) && !sessions.contains(name)
                        && isIndexFolder(folder)) {
                    deleteFolder(folder);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not list the recall indexes in " + indexDirectory, e);
        }
    }

    private static void deleteFolder(Path folder) throws IOException {
        deleteFiles(folder);
        Files.deleteIfExists(folder);
    }
}
