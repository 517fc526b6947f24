package io.github.memorypack.core.file;

import java.io.IOException;
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
 * each JVM that starts a turn there holds an OS lock on a file of its own, {@code .processes/<id>.lock}, for
 * as long as it runs; the OS releases it when the process ends, however it ends (a crash, a kill). A process
 * whose file is gone, or whose file another process can lock, has ended. One mark per JVM and folder: a JVM
 * holds one OS lock per file, and closing any channel on a locked file may release the JVM's lock, so the
 * owner never opens its own file again.
 *
 * <p>A new mark is created and locked under a temporary name, then renamed into place, so that no other
 * process ever finds it unlocked while its owner runs; the first mark a JVM makes removes the files of the
 * processes that have ended.
 */
final class ProcessMarks {

    /** The sub-folder of a store's folder that holds the marks: no session file or derived-data kind is named so. */
    static final String FOLDER = ".processes";
    private static final String SUFFIX = ".lock";
    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** This JVM's mark on each folder (its real path), held for the life of the JVM; NONE where none could be made. */
    private static final Map<Path, Mark> OWN = new ConcurrentHashMap<>();
    private static final Mark NONE = new Mark(null, null);
    /** Processes known to have ended, as folder + '/' + id: an ended process stays ended. */
    private static final Set<String> ENDED = ConcurrentHashMap.newKeySet();

    private ProcessMarks() {
    }

    /** A lock file held open and locked until the JVM exits (never released: the OS does it at the end). */
    private record Mark(String id, FileLock lock) {
    }

    /** This JVM's id on {@code folder}, made on the first call; null when the folder cannot hold a mark (read-only). */
    static String own(Path folder) {
        return OWN.computeIfAbsent(folder, ProcessMarks::create).id;
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
        Mark own = OWN.get(folder);
        if (own != null && id.equals(own.id)) {
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
        FileChannel channel = null;
        try {
            Files.createDirectories(marks);
            channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.lock();
            Files.move(temporary, marks.resolve(id + SUFFIX), StandardCopyOption.ATOMIC_MOVE);
            Mark mark = new Mark(id, lock);
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
            return NONE;
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
