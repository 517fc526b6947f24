package io.github.memorypack.core.file;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which processes use a store folder ({@link FileSessionStore#processId}, {@link FileSessionStore#processEnded}):
 * a JVM that starts a turn there holds an OS lock on a file of its own, {@code .processes/<id>.lock}, for as
 * long as a store instance on that folder that asked for it is reachable (a memory holds its store, so a turn
 * that may still go on keeps the mark); the OS releases it when the process ends, however it ends (a crash,
 * a kill), and this JVM removes it once no store instance holds it. A process whose file is gone, or whose
 * file another process can lock, has ended. One mark per JVM and folder at a time: a JVM holds one OS lock per
 * file, and closing any channel on a locked file may release the JVM's lock, so the owner never opens its
 * own file again.
 *
 * <p>A new mark is created and locked under a temporary name, then renamed into place, so that no other
 * process ever finds it unlocked while its owner runs; the first mark a JVM makes on a folder removes the
 * files of the processes that have ended.
 */
final class ProcessMarks {

    /** The sub-folder of a store's folder that holds the marks: no session file or derived-data kind is named so. */
    static final String FOLDER = ".processes";
    private static final String SUFFIX = ".lock";
    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Cleaner CLEANER = Cleaner.create();
    /** This JVM's mark on each folder, while a store instance holds it. */
    private static final Map<Path, WeakReference<Mark>> OWN = new ConcurrentHashMap<>();
    /** Processes known to have ended, as folder + '/' + id: an ended process stays ended. */
    private static final Set<String> ENDED = ConcurrentHashMap.newKeySet();

    private ProcessMarks() {
    }

    /** This JVM's mark on a folder, while someone holds it ({@link DurableFiles.Processes}); its id null when none could be made. */
    static final class Mark {
        private final String id;

        Mark(String id) {
            this.id = id;
        }

        String id() {
            return id;
        }
    }

    /**
     * This JVM's mark on {@code folder}, made (or made again, after the last holder let go of the previous
     * one) on demand; one whose id is null when the folder cannot hold a mark (read-only).
     */
    static Mark own(Path folder) {
        Mark[] mark = new Mark[1];
        OWN.compute(folder, (f, held) -> {
            mark[0] = held == null ? null : held.get();
            if (mark[0] != null) {
                return held;
            }
            mark[0] = create(f);
            return new WeakReference<>(mark[0]);
        });
        return mark[0];
    }

    /**
     * True if the process that made the mark {@code id} in {@code folder} has ended: its file is gone, or
     * this process could lock it (and then removes it). False for this JVM's own id, for an id that is no
     * mark's name, and when the file cannot be checked.
     */
    static boolean ended(Path folder, String id) {
        if (!isId(id)) {
            return false;
        }
        WeakReference<Mark> held = OWN.get(folder);
        Mark own = held == null ? null : held.get();
        if (own != null && id.equals(own.id())) {
            return false;
        }
        String key = folder + "/" + id;
        if (ENDED.contains(key)) {
            return true;
        }
        Path file = folder.resolve(FOLDER).resolve(id + SUFFIX);
        boolean ended;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                return false; // held in this JVM: alive
            }
            if (lock == null) {
                return false; // another process holds it: alive
            }
            // nobody holds it: its process has ended; remove the file while holding the lock
            Files.deleteIfExists(file);
            ended = true;
        } catch (NoSuchFileException e) {
            ended = true; // removed once its process had ended
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not check process mark {}: {}", file, e.toString());
            return false;
        }
        ENDED.add(key);
        return ended;
    }

    /** 16 hex digits: what {@link #create} names a mark (anything else in a log is no mark of ours). */
    private static boolean isId(String id) {
        if (id == null || id.length() != 16) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static Mark create(Path folder) {
        Path marks = folder.resolve(FOLDER);
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        String id = HexFormat.of().formatHex(bytes);
        Path temporary = marks.resolve(id + SUFFIX + ".new");
        Path file = marks.resolve(id + SUFFIX);
        FileChannel channel = null;
        try {
            Files.createDirectories(marks);
            channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            channel.lock();
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            Mark mark = new Mark(id);
            CLEANER.register(mark, new Release(channel, file));
            removeEnded(folder, marks, id);
            return mark;
        } catch (IOException | RuntimeException e) {
            LOG.debug("no process mark in {} ({}): turns left open by a process that ended here end by the open-turn"
                    + " timeout only", folder, e.toString());
            if (channel != null) {
                try {
                    channel.close();
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // nothing was marked
                }
            }
            return new Mark(null);
        }
    }

    /** Removes a mark no store instance holds any more, then releases its lock (the file first: no one finds it unlocked). */
    private static final class Release implements Runnable {
        private final FileChannel channel;
        private final Path file;

        Release(FileChannel channel, Path file) {
            this.channel = channel;
            this.file = file;
        }

        @Override
        public void run() {
            try {
                Files.deleteIfExists(file);
            } catch (IOException | RuntimeException e) {
                LOG.debug("could not remove process mark {}: {}", file, e.toString());
            }
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("could not release process mark {}: {}", file, e.toString());
            }
        }
    }

    /** Removes the marks of processes that have ended (checked as {@link #ended} checks one). */
    private static void removeEnded(Path folder, Path marks, String own) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(marks, "*" + SUFFIX)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                String id = name.substring(0, name.length() - SUFFIX.length());
                if (!id.equals(own)) {
                    ended(folder, id);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not list process marks in {}: {}", marks, e.toString());
        }
    }
}
