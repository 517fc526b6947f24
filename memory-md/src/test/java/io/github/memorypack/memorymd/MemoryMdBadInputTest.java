package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input and calls that change nothing create no file and no folder. */
class MemoryMdBadInputTest {

    @TempDir
    Path dir;

    private List<String> files() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> !p.equals(dir)).map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void should_create_nothing_when_compare_and_set_fails_on_an_unknown_session() throws IOException {
        MemoryMdSessionStore store = MemoryMdSessionStore.of(dir);

        assertThat(store.compareAndSetState("unknown", 3, SessionState.EMPTY)).isEmpty();
        assertThat(store.compareAndSetState("unknown", -1, SessionState.EMPTY)).isEmpty();

        assertThat(files()).isEmpty();
        assertThat(store.sessions()).isEmpty();
        assertThat(store.compareAndSetState("unknown", 0, SessionState.EMPTY)).isPresent();
        assertThat(MemoryMdSessionStore.of(dir).state("unknown").version()).isEqualTo(1);
    }

    @Test
    void should_reject_bad_arguments_before_touching_a_file_when_they_are_invalid() throws IOException {
        MemoryMdSessionStore store = MemoryMdSessionStore.of(dir);
        List<NewEntry> withNull = Arrays.asList(NewEntry.of(UserMessage.from("a")), null);

        assertThatThrownBy(() -> store.read("s", -1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.read("s", 0, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.readLast("s", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.append("s", withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> store.append("s", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> store.append("s", List.of(), " ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.compareAndSetState("s", 0, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> store.compact("s", " ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.append("../s", List.of(NewEntry.of(UserMessage.from("a")))))
                .isInstanceOf(IllegalArgumentException.class);
        store.trim("s", -5);
        store.delete("s");

        assertThat(files()).isEmpty();
    }

    @Test
    void should_name_folder_durability_and_damage_policy_when_printed() {
        assertThat(MemoryMdSessionStore.of(dir)).hasToString("MemoryMdSessionStore{" + dir.toAbsolutePath().normalize()
                + ", SYNC, FAIL}");
        assertThat(MemoryMdSessionStore.builder().directory(dir).durability(MemoryMdSessionStore.Durability.OS_BUFFERED)
                .damagePolicy(MemoryMdSessionStore.DamagePolicy.SKIP_DAMAGED_BLOCKS).build())
                .hasToString("MemoryMdSessionStore{" + dir.toAbsolutePath().normalize()
                        + ", OS_BUFFERED, SKIP_DAMAGED_BLOCKS}");
    }

    @Test
    void should_store_nothing_and_return_the_kept_entries_when_a_key_is_retried_after_a_trim_cut_its_batch() {
        MemoryMdSessionStore store = MemoryMdSessionStore.of(dir);
        store.append("s", List.of(NewEntry.of(UserMessage.from("older"))));
        List<io.github.memorypack.core.Entry> batch = store.append("s", List.of(NewEntry.of(UserMessage.from("q")),
                NewEntry.of(UserMessage.from("a1")), NewEntry.of(UserMessage.from("a2"))), "request-1");
        store.trim("s", 2);

        assertThat(store.append("s", List.of(NewEntry.of(UserMessage.from("q"))), "request-1"))
                .containsExactlyElementsOf(batch.subList(1, 3));
        assertThat(MemoryMdSessionStore.of(dir).append("s", List.of(NewEntry.of(UserMessage.from("q"))), "request-1"))
                .containsExactlyElementsOf(batch.subList(1, 3));
        assertThat(store.read("s", 0, 10)).containsExactlyElementsOf(batch.subList(1, 3));
    }
}
