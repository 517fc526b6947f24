package io.github.memorypack.core.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableFilesTest {

    @TempDir
    Path dir;

    private DurableFiles disk() {
        return DurableFiles.of(dir);
    }

    @Test
    void should_cut_off_what_follows_and_create_owner_only_files_when_writing_at_a_position() throws IOException {
        // given
        Path file = dir.resolve("log");
        disk().writeAt(file, 0, "hello torn-tail".getBytes(UTF_8), true);

        // when
        disk().writeAt(file, 5, " world".getBytes(UTF_8), true);

        // then
        assertThat(Files.readString(file)).isEqualTo("hello world");
        assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void should_refuse_to_write_past_the_start_when_the_file_is_missing() {
        // when / then: a missing file has nothing to extend, and nothing is created
        Path file = dir.resolve("gone");
        assertThatThrownBy(() -> disk().writeAt(file, 10, "x".getBytes(UTF_8), true))
                .isInstanceOf(NoSuchFileException.class);
        assertThat(file).doesNotExist();
    }

    @Test
    void should_replace_whole_files_and_leave_no_temp_file_when_replacing_atomically() throws IOException {
        // given
        Path file = dir.resolve("state");
        disk().replaceAtomically(file, "one".getBytes(UTF_8));

        // when
        disk().replaceAtomically(file, "two".getBytes(UTF_8));

        // then
        assertThat(Files.readString(file)).isEqualTo("two");
        assertThat(names()).containsExactly("state");
    }

    @Test
    void should_never_replace_a_file_when_creating_atomically() throws IOException {
        // given
        Path file = dir.resolve("archive.md");
        disk().createAtomically(file, "first".getBytes(UTF_8));

        // when / then
        assertThatThrownBy(() -> disk().createAtomically(file, "second".getBytes(UTF_8)))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(Files.readString(file)).isEqualTo("first");
        assertThat(names()).containsExactly("archive.md");
    }

    @Test
    void should_take_no_os_lock_and_create_nothing_when_a_reader_finds_no_lock_file() throws IOException {
        // given
        Path lockFile = dir.resolve("s.lock");

        // when
        Optional<FileChannel> shared = disk().lockFile(lockFile, false);

        // then
        assertThat(shared).isEmpty();
        assertThat(lockFile).doesNotExist();
        try (FileChannel exclusive = disk().lockFile(lockFile, true).orElseThrow()) {
            assertThat(exclusive.isOpen()).isTrue();
        }
        try (FileChannel reader = disk().lockFile(lockFile, false).orElseThrow()) {
            assertThat(reader.isOpen()).isTrue();
        }
    }

    @Test
    void should_exclude_other_threads_and_forget_the_lock_when_its_last_user_releases_it() throws Exception {
        // given: a thread holding a session's lock (twice: it is reentrant)
        Path lockFile = dir.resolve("s.lock");
        int before = DurableFiles.threadLocksInUse();
        DurableFiles.Held outer = DurableFiles.lockThreads(lockFile);
        DurableFiles.Held inner = DurableFiles.lockThreads(Path.of(lockFile.toString()));
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch asking = new CountDownLatch(1);

            // when: another thread asks for it
            Future<Integer> waited = other.submit(() -> {
                asking.countDown();
                try (DurableFiles.Held held = DurableFiles.lockThreads(lockFile)) {
                    return DurableFiles.threadLocksInUse();
                }
            });
            asking.await();

            // then: it waits until both holds are released; one entry serves both threads
            assertThat(DurableFiles.threadLocksInUse()).isEqualTo(before + 1);
            inner.close();
            assertThat(waited.isDone()).isFalse();
            outer.close();
            assertThat(waited.get(10, TimeUnit.SECONDS)).isEqualTo(before + 1);
            assertThat(DurableFiles.threadLocksInUse()).isEqualTo(before);
        } finally {
            other.shutdownNow();
        }
    }

    private java.util.List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
