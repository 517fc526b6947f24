package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.testkit.SessionStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The races of {@link SessionStoreContract} on MEMORY.md files, appends not forced (the races are about locking, not disks). */
class MemoryMdRaceTest {

    @TempDir
    Path dir;

    private MemoryMdSessionStore store() {
        return MemoryMdSessionStore.builder().directory(dir).durability(MemoryMdSessionStore.Durability.OS_BUFFERED)
                .build();
    }

    @Test
    void should_count_exactly_and_keep_each_writer_order_when_threads_append_to_many_sessions() throws Exception {
        assertThat(SessionStoreContract.manySessions(store(), 8, 10, 10)).hasSize(10)
                .allSatisfy(log -> assertThat(log).hasSize(8 * 10));
    }

    @Test
    void should_keep_reads_whole_and_ordered_when_deletes_replaces_and_trims_race_appends() throws Exception {
        assertThat(SessionStoreContract.deletesRacingAppends(store(), 4, 60))
                .hasSize(4 * 60);
    }

    @Test
    void should_store_each_key_once_when_threads_of_several_store_instances_race_with_the_same_keys()
            throws Exception {
        assertThat(SessionStoreContract.sameKeysRacing(java.util.List.of(store(), store(), store()), 4, 40))
                .extracting(e -> e.idempotencyKey().orElseThrow()).hasSize(40).doesNotHaveDuplicates();
    }
}
