package io.github.memorypack.core.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** This JVM's process mark in a store folder: shared by the store instances on it, let go with the last. */
class ProcessMarksTest {

    @TempDir
    Path folder;

    @Test
    void should_share_one_mark_between_the_store_instances_of_a_folder() throws Exception {
        FileSessionStore one = FileSessionStore.of(folder);
        FileSessionStore two = FileSessionStore.of(folder);

        assertThat(one.processId()).isNotNull().isEqualTo(two.processId());
        assertThat(one.processEnded(two.processId())).isFalse();
        assertThat(marks()).containsExactly(one.processId() + ".lock");
    }

    @Test
    void should_remove_the_mark_when_no_store_instance_holds_it_any_more() throws Exception {
        // given: a store that made this JVM's mark, then dropped (its application let go of it)
        String id = FileSessionStore.of(folder).processId();
        assertThat(marks()).containsExactly(id + ".lock");

        // when: the collector finds it unreachable
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!marks().isEmpty() && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }

        // then: the mark is gone (its lock released), and that process id counts as ended from now on
        assertThat(marks()).isEmpty();
        FileSessionStore later = FileSessionStore.of(folder);
        assertThat(later.processEnded(id)).isTrue();
        assertThat(later.processId()).isNotEqualTo(id);
    }

    @Test
    void should_name_no_process_and_tell_nothing_on_a_read_only_folder() throws Exception {
        FileSessionStore store = FileSessionStore.of(folder);
        assertThat(folder.toFile().setWritable(false)).isTrue();
        try {
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(folder), "runs as a user who may write anyway");
            assertThat(store.processId()).isNull();
            assertThat(store.processEnded("0123456789abcdef")).isTrue(); // no such mark: nobody holds it
        } finally {
            folder.toFile().setWritable(true);
        }
    }

    private Stream<String> marksStream() throws Exception {
        Path marks = folder.resolve(ProcessMarks.FOLDER);
        return Files.exists(marks) ? Files.list(marks).map(p -> p.getFileName().toString()) : Stream.empty();
    }

    private java.util.List<String> marks() throws Exception {
        try (Stream<String> names = marksStream()) {
            return names.toList();
        }
    }
}
