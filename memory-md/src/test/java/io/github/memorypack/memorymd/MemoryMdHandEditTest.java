package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user opens MEMORY.md in an editor and saves it: what the README promises for each kind of edit
 * (a change that only an editor makes is read as before; anything else is reported, never read as
 * different content or a different role, and never reuses an index).
 */
class MemoryMdHandEditTest {

    private static final List<ChatMessage> MESSAGES = List.of(UserMessage.from("one"), AiMessage.from("two "),
            UserMessage.from("three"), AiMessage.from("four"));

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T14:00:00Z"));
    private final List<String> warnings = new ArrayList<>();

    private MemoryMdSessionStore store(MemoryMdSessionStore.DamagePolicy policy) {
        return MemoryMdSessionStore.builder().directory(dir).clock(clock).damagePolicy(policy)
                .warningListener(warnings::add).build();
    }

    /** Writes the four messages one append each, then edits the file with {@code edit}. */
    private Path written(UnaryOperator<String> edit) throws IOException {
        MemoryMdSessionStore store = store(MemoryMdSessionStore.DamagePolicy.FAIL);
        for (ChatMessage m : MESSAGES) {
            store.append("s", List.of(NewEntry.of(m)));
        }
        Path md = store.memoryFile("s");
        String text = Files.readString(md);
        Files.writeString(md, edit.apply(text));
        return md;
    }

    private static List<ChatMessage> messages(List<Entry> entries) {
        return entries.stream().map(Entry::message).toList();
    }

    @Test
    void should_read_every_message_when_an_editor_saved_the_file_with_crlf_line_ends() throws IOException {
        written(t -> t.replace("\n", "\r\n"));
        MemoryMdSessionStore store = store(MemoryMdSessionStore.DamagePolicy.FAIL);
        assertThat(messages(store.read("s", 0, 10))).containsExactlyElementsOf(MESSAGES);
        store.append("s", List.of(NewEntry.of(UserMessage.from("five"))));
        assertThat(messages(store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10))).hasSize(5)
                .startsWith(MESSAGES.toArray(ChatMessage[]::new));
    }

    @Test
    void should_read_every_message_when_an_editor_added_a_byte_order_mark() throws IOException {
        written(t -> "\uFEFF" + t);
        MemoryMdSessionStore store = store(MemoryMdSessionStore.DamagePolicy.FAIL);
        assertThat(messages(store.read("s", 0, 10))).containsExactlyElementsOf(MESSAGES);
        store.append("s", List.of(NewEntry.of(UserMessage.from("five"))));
        assertThat(store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10)).extracting(Entry::index)
                .containsExactly(0L, 1L, 2L, 3L, 4L);
    }

    @Test
    void should_report_and_never_read_changed_text_when_an_editor_stripped_trailing_spaces() throws IOException {
        written(t -> t.replaceAll("[ \\t]+\n", "\n"));
        assertThat(catchThrowable(() -> store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10)))
                .isInstanceOf(CorruptRecordException.class);
        List<Entry> lenient = store(MemoryMdSessionStore.DamagePolicy.SKIP_DAMAGED_BLOCKS).read("s", 0, 10);
        assertThat(messages(lenient)).isSubsetOf(MESSAGES).doesNotContain(AiMessage.from("two "));
        assertThat(warnings).isNotEmpty();
    }

    @Test
    void should_report_an_altered_marker_and_never_load_it_when_a_marker_was_edited() throws IOException {
        written(t -> t.replaceFirst("\"index\":2", "\"index\":9"));
        assertThat(catchThrowable(() -> store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10)))
                .isInstanceOf(CorruptRecordException.class);
        List<Entry> lenient = store(MemoryMdSessionStore.DamagePolicy.SKIP_DAMAGED_BLOCKS).read("s", 0, 10);
        assertThat(lenient).extracting(Entry::index).containsExactly(0L, 1L, 3L);
        assertThat(warnings).isNotEmpty();
    }

    @Test
    void should_report_damage_when_two_blocks_were_swapped_by_hand() throws IOException {
        written(t -> {
            int b1 = t.indexOf("### assistant");
            int b2 = t.indexOf("### user", b1);
            int b3 = t.indexOf("### assistant", b2);
            return t.substring(0, b1) + t.substring(b2, b3) + t.substring(b1, b2) + t.substring(b3);
        });
        assertThat(catchThrowable(() -> store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10)))
                .isInstanceOf(CorruptRecordException.class).hasMessageContaining("is not after the previous index");
    }

    @Test
    void should_load_the_other_blocks_with_their_indices_when_a_middle_block_was_deleted_by_hand()
            throws IOException {
        written(t -> {
            int b1 = t.indexOf("### assistant");
            int b2 = t.indexOf("### user", b1);
            return t.substring(0, b1) + t.substring(b2);
        });
        MemoryMdSessionStore store = store(MemoryMdSessionStore.DamagePolicy.FAIL);
        assertThat(store.read("s", 0, 10)).extracting(Entry::index).containsExactly(0L, 2L, 3L);
        assertThat(store.nextIndex("s")).isEqualTo(4);
        store.append("s", List.of(NewEntry.of(UserMessage.from("five"))));
        assertThat(store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10)).extracting(Entry::index)
                .containsExactly(0L, 2L, 3L, 4L);
    }

    @Test
    void should_never_reuse_the_index_of_a_block_set_aside_when_the_newest_block_was_edited() throws IOException {
        // given: the user changed a word of the newest message; the lenient store sets that block aside
        Path md = written(t -> t.replace("four", "FOUR"));
        MemoryMdSessionStore lenient = store(MemoryMdSessionStore.DamagePolicy.SKIP_DAMAGED_BLOCKS);
        assertThat(lenient.read("s", 0, 10)).extracting(Entry::index).containsExactly(0L, 1L, 2L);

        // when
        List<Entry> appended = lenient.append("s", List.of(NewEntry.of(UserMessage.from("five"))));

        // then: the block set aside keeps its index to itself, and once the user undoes the edit both
        // messages are there, in index order
        assertThat(appended).extracting(Entry::index).containsExactly(4L);
        Files.writeString(md, Files.readString(md).replace("FOUR", "four"));
        assertThat(messages(store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10)))
                .containsExactly(MESSAGES.get(0), MESSAGES.get(1), MESSAGES.get(2), MESSAGES.get(3),
                        UserMessage.from("five"));
    }

    @Test
    void should_keep_the_newest_message_when_an_editor_or_a_script_removed_the_final_line_end() throws IOException {
        // given: the file saved without its final line end(s), as `echo -n "$(cat MEMORY.md)"` or an editor
        // set not to end files with a newline does (with CRLF line ends too)
        for (UnaryOperator<String> edit : List.<UnaryOperator<String>>of(String::stripTrailing,
                t -> t.replace("\n", "\r\n").stripTrailing())) {
            Path md = written(edit);

            // when
            MemoryMdSessionStore store = store(MemoryMdSessionStore.DamagePolicy.FAIL);
            List<ChatMessage> read = messages(store.read("s", 0, 10));
            store.append("s", List.of(NewEntry.of(UserMessage.from("five"))));

            // then: the newest message is read, not taken for an interrupted write and cut off
            assertThat(read).containsExactlyElementsOf(MESSAGES);
            assertThat(store(MemoryMdSessionStore.DamagePolicy.FAIL).read("s", 0, 10)).extracting(Entry::index)
                    .containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(warnings).isEmpty();
            MemoryMdSessionStore.of(dir).delete("s");
            assertThat(md).doesNotExist();
        }
    }
}
