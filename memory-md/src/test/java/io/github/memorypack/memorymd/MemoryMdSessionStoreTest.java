package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.testkit.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryMdSessionStoreTest {

    private static final Instant T0 = Instant.parse("2026-11-29T14:00:00Z");

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at(T0);

    private MemoryMdSessionStore store() {
        return MemoryMdSessionStore.builder().directory(dir).clock(clock).build();
    }

    /** A store on {@code files} whose session "s1" holds {@code texts}. */
    private MemoryMdSessionStore storeWith(FailingFileLayer files, String... texts) {
        MemoryMdSessionStore store = MemoryMdSessionStore.builder().directory(dir).clock(clock).fileLayer(files).build();
        store.append("s1", users(texts));
        return store;
    }

    private static List<NewEntry> users(String... texts) {
        List<NewEntry> list = new ArrayList<>();
        for (String t : texts) {
            list.add(NewEntry.of(UserMessage.from(t)));
        }
        return list;
    }

    private static List<ChatMessage> messages(List<Entry> entries) {
        return entries.stream().map(Entry::message).toList();
    }

    private String file(String session) throws IOException {
        return Files.readString(dir.resolve(session).resolve("MEMORY.md"));
    }

    @Test
    void should_write_header_and_block_with_private_permissions_when_first_message_is_added() throws IOException {
        // given
        MemoryMdSessionStore store = store();
        // when
        store.append("s1", List.of(NewEntry.of(UserMessage.from("Hello"), 4, Map.of("category", "input"))));
        // then
        assertThat(file("s1")).startsWith("# Agent Memory\n\nCreated: 2026-11-29T14:00:00Z\n\n")
                .contains("## Interaction Log\n\n### user \u2014 2026-11-29T14:00:00Z\n<!-- entry {\"index\":0,")
                .contains("\"meta\":{\"category\":\"input\"}")
                .endsWith("```text\nHello\n```\n\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("s1")))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("s1/MEMORY.md"))))
                .isEqualTo("rw-------");
    }

    @Test
    void should_leave_existing_file_as_is_and_preload_typed_messages_when_file_was_written_by_hand() throws IOException {
        // given
        String handWritten = "# Agent Memory\n\nNotes a person keeps.\n\n## Interaction Log\n\n"
                + "### user \u2014 2026-01-01T10:00:00Z\nI prefer tea.\n\n### assistant \u2014 2026-01-01T10:00:01Z\nNoted.\n";
        Files.createDirectories(dir.resolve("s1"));
        Files.writeString(dir.resolve("s1/MEMORY.md"), handWritten);
        MemoryMdSessionStore store = store();
        // when
        List<Entry> entries = store.read("s1", 0, 10);
        store.append("s1", users("And coffee?"));
        // then
        assertThat(messages(entries)).containsExactly(UserMessage.from("I prefer tea."), AiMessage.from("Noted."));
        assertThat(messages(store().read("s1", 0, 10))).containsExactly(UserMessage.from("I prefer tea."),
                AiMessage.from("Noted."), UserMessage.from("And coffee?"));
        // the first write rewrote the file in format 2 (checksummed blocks); the hand-written original is archived
        assertThat(file("s1")).contains("{\"format\":2,").contains("<!-- entry {\"index\":0,\"id\":\"hand-0\"");
        assertThat(MemoryMdFormat.parse(file("s1"))).hasSize(3);
        try (Stream<Path> archived = Files.list(dir.resolve("s1/archive"))) {
            assertThat(archived).singleElement().satisfies(p -> assertThat(Files.readString(p)).isEqualTo(handWritten));
        }
    }

    @Test
    void should_add_the_header_when_an_existing_file_is_empty() throws IOException {
        // given
        Files.createDirectories(dir.resolve("s1"));
        Files.writeString(dir.resolve("s1/MEMORY.md"), "\n");
        MemoryMdSessionStore store = store();
        // when
        List<Entry> before = store.read("s1", 0, 10);
        store.append("s1", users("first"));
        // then
        assertThat(before).isEmpty();
        assertThat(file("s1")).startsWith("# Agent Memory\n");
        assertThat(messages(MemoryMdFormat.parse(file("s1")))).containsExactly(UserMessage.from("first"));
    }

    @Test
    void should_keep_system_messages_out_of_memory_md_when_state_or_log_holds_them() throws IOException {
        // given
        MemoryMdSessionStore store = store();
        store.compareAndSetState("s1", 0, SessionState.EMPTY.withSystemMessage(SystemMessage.from("SECRET RULES")));
        // when
        store.append("s1", List.of(NewEntry.of(SystemMessage.from("SECRET RULES v2")), NewEntry.of(UserMessage.from("hi"))));
        // then
        assertThat(file("s1")).doesNotContain("SECRET").contains("### system \u2014").contains(MemoryMdFormat.SIDECAR_NOTE);
        MemoryMdSessionStore reopened = store();
        assertThat(messages(reopened.read("s1", 0, 10)))
                .containsExactly(SystemMessage.from("SECRET RULES v2"), UserMessage.from("hi"));
        assertThat(reopened.state("s1").systemMessage()).contains(SystemMessage.from("SECRET RULES"));
    }

    @Test
    void should_archive_then_restart_with_summary_and_continue_indices_when_compacted() throws IOException {
        // given
        MemoryMdSessionStore store = store();
        store.append("s1", users("one", "two", "three"));
        String before = file("s1");
        // when
        Path archive = store.compact("s1", "User counted to three.").orElseThrow();
        List<Entry> next = store.append("s1", users("four"));
        // then
        assertThat(Files.readString(archive)).isEqualTo(before);
        assertThat(archive.getParent()).isEqualTo(dir.resolve("s1/archive"));
        assertThat(archive.getFileName().toString()).startsWith("history_2026-11-29T14-00-00.000000000Z");
        assertThat(file("s1")).startsWith("# Agent Memory\n\nCreated: ")
                .contains("## Interaction Log\n\n### summary \u2014 2026-11-29T14:00:00Z\n<!-- summary {\"covers\":3,")
                .contains("```text\nUser counted to three.\n```").doesNotContain("one");
        assertThat(next.get(0).index()).isEqualTo(3);
        MemoryMdSessionStore reopened = store();
        assertThat(reopened.nextIndex("s1")).isEqualTo(4);
        assertThat(reopened.state("s1").summary().orElseThrow().coveredUntil()).isEqualTo(3);
        assertThat(messages(reopened.read("s1", 0, 10))).containsExactly(UserMessage.from("four"));
    }

    @Test
    void should_never_collide_when_archives_are_made_in_the_same_instant() {
        // given
        MemoryMdSessionStore store = store();
        // when
        for (int i = 0; i < 3; i++) {
            store.append("s1", users("m" + i));
            store.compact("s1", "summary " + i);
        }
        // then
        try (Stream<Path> files = Files.list(dir.resolve("s1/archive"))) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly(
                    "history_2026-11-29T14-00-00.000000000Z-1.md", "history_2026-11-29T14-00-00.000000000Z-2.md",
                    "history_2026-11-29T14-00-00.000000000Z.md");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void should_keep_adds_in_memory_and_leave_file_untouched_when_persistence_is_off() throws IOException {
        // given
        MemoryMdSessionStore store = store();
        store.append("s1", users("saved"));
        String before = file("s1");
        // when
        store.persistence(false);
        store.append("s1", users("not saved"));
        // then
        assertThat(file("s1")).isEqualTo(before);
        assertThat(messages(store.read("s1", 0, 10))).containsExactly(UserMessage.from("saved"), UserMessage.from("not saved"));
        assertThat(messages(store().read("s1", 0, 10))).containsExactly(UserMessage.from("saved"));
        assertThatThrownBy(() -> store.compact("s1", "x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> store.delete("s1")).isInstanceOf(IllegalStateException.class);

        store.persistence(true);
        store.append("s1", users("saved again"));
        assertThat(messages(store().read("s1", 0, 10))).containsExactly(UserMessage.from("saved"),
                UserMessage.from("saved again"));
    }

    @Test
    void should_refuse_to_load_when_file_is_over_the_preload_limit() {
        // given
        store().append("s1", users("x".repeat(2_000)));
        MemoryMdSessionStore small = MemoryMdSessionStore.builder().directory(dir).maxPreloadBytes(1_000).build();
        // when / then
        assertThatThrownBy(() -> small.read("s1", 0, 10)).isInstanceOf(MemoryMdSessionStore.TooLargeException.class)
                .hasMessageContaining("over the limit of 1000 bytes");
    }

    @Test
    void should_fail_naming_the_line_or_load_good_blocks_with_warning_when_file_is_damaged() throws IOException {
        // given
        store().append("s1", users("one", "two", "three"));
        Path md = dir.resolve("s1/MEMORY.md");
        Files.writeString(md, Files.readString(md).replace("\"index\":1,", "\"index\":\"x\","));
        String damaged = Files.readString(md);
        List<String> warnings = new ArrayList<>();
        // when / then
        assertThatThrownBy(() -> store().read("s1", 0, 10)).isInstanceOf(MemoryMdFormatException.class)
                .hasMessageContaining("line 16").hasMessageContaining("MEMORY.md");
        MemoryMdSessionStore lenient = MemoryMdSessionStore.builder().directory(dir)
                .damagePolicy(MemoryMdSessionStore.DamagePolicy.SKIP_DAMAGED_BLOCKS).warningListener(warnings::add).build();
        assertThat(messages(lenient.read("s1", 0, 10))).containsExactly(UserMessage.from("one"), UserMessage.from("three"));
        assertThat(warnings).singleElement().asString().contains("line 16").contains("block set aside");
        assertThat(Files.readString(md)).isEqualTo(damaged);
        MemoryMdSessionStore strict = store();
        strict.delete("s1"); // a damaged session can still be deleted
        assertThat(strict.read("s1", 0, 10)).isEmpty();
        assertThat(strict.sessions()).isEmpty();
    }

    @Test
    void should_ignore_then_archive_and_cut_a_torn_tail_when_a_writer_died_mid_append() throws IOException {
        // given
        store().append("s1", users("acknowledged"));
        Path md = dir.resolve("s1/MEMORY.md");
        Entry unacknowledged = new Entry(1, "x", T0, 3, UserMessage.from("half written"), Map.of(), null);
        String block = MemoryMdFormat.block(unacknowledged, 1, false);
        Files.writeString(md, block.substring(0, block.indexOf("half") + 3), java.nio.file.StandardOpenOption.APPEND);
        List<String> warnings = new ArrayList<>();
        MemoryMdSessionStore store = MemoryMdSessionStore.builder().directory(dir).clock(clock).warningListener(warnings::add).build();
        // when
        List<Entry> before = store.read("s1", 0, 10);
        store.append("s1", users("next"));
        // then
        assertThat(messages(before)).containsExactly(UserMessage.from("acknowledged"));
        assertThat(warnings).singleElement().asString().contains("interrupted write");
        assertThat(messages(MemoryMdFormat.parse(file("s1")))).containsExactly(UserMessage.from("acknowledged"),
                UserMessage.from("next"));
        try (Stream<Path> files = Files.list(dir.resolve("s1/archive"))) {
            Path torn = files.filter(p -> p.getFileName().toString().startsWith("torn_")).findFirst().orElseThrow();
            assertThat(Files.readString(torn)).endsWith("```text\nhal");
            assertThat(Files.readString(torn)).startsWith("### user");
        }
    }

    @Test
    void should_throw_and_keep_memory_md_when_archive_cannot_be_written() throws IOException {
        // given
        FailingFileLayer files = new FailingFileLayer();
        MemoryMdSessionStore store = storeWith(files, "one", "two");
        String before = file("s1");
        files.fail("createNew", "history_");
        // when / then
        assertThatThrownBy(() -> store.compact("s1", "sum")).isInstanceOf(StoreException.class)
                .hasMessageContaining("No space left on device").hasCauseInstanceOf(IOException.class);
        assertThat(file("s1")).isEqualTo(before);
        assertThat(messages(store().read("s1", 0, 10))).containsExactly(UserMessage.from("one"), UserMessage.from("two"));
        try (Stream<Path> left = Files.list(dir.resolve("s1/archive"))) {
            assertThat(left).isEmpty(); // no temporary file left behind either
        }
    }

    @Test
    void should_throw_and_keep_memory_md_when_new_live_file_cannot_be_written() throws IOException {
        // given
        FailingFileLayer files = new FailingFileLayer();
        MemoryMdSessionStore store = storeWith(files, "one", "two");
        String before = file("s1");
        files.fail("writeAtomically", "MEMORY.md");
        // when / then
        assertThatThrownBy(() -> store.trim("s1", 1)).isInstanceOf(StoreException.class);
        assertThat(file("s1")).isEqualTo(before);
        files.heal();
        assertThat(messages(store.read("s1", 0, 10))).containsExactly(UserMessage.from("one"), UserMessage.from("two"));
    }

    @Test
    void should_throw_and_store_nothing_when_append_hits_a_full_disk() throws IOException {
        // given
        FailingFileLayer files = new FailingFileLayer();
        MemoryMdSessionStore store = storeWith(files, "one");
        String before = file("s1");
        files.fail("writeAt", "MEMORY.md");
        // when / then
        assertThatThrownBy(() -> store.append("s1", users("two", "three"))).isInstanceOf(StoreException.class);
        assertThat(file("s1")).isEqualTo(before);
        files.heal();
        assertThat(messages(store.read("s1", 0, 10))).containsExactly(UserMessage.from("one"));
        assertThat(store.append("s1", users("four")).get(0).index()).isEqualTo(1);
    }

    @Test
    void should_throw_typed_exception_and_keep_file_when_folder_is_read_only() throws IOException {
        // given
        MemoryMdSessionStore store = store();
        store.append("s1", users("one"));
        String before = file("s1");
        Path session = dir.resolve("s1");
        Files.setPosixFilePermissions(session, PosixFilePermissions.fromString("r-x------"));
        try {
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(session), "running as root: permissions are not enforced");
            // when / then
            assertThatThrownBy(() -> store.compact("s1", "sum")).isInstanceOf(StoreException.class);
            assertThat(file("s1")).isEqualTo(before);
        } finally {
            Files.setPosixFilePermissions(session, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void should_reuse_clock_time_in_block_headings_when_clock_moves() throws IOException {
        MemoryMdSessionStore store = store();
        store.append("s1", users("a"));
        clock.advance(Duration.ofMinutes(5));
        store.append("s1", users("b"));
        assertThat(file("s1")).contains("### user \u2014 2026-11-29T14:00:00Z").contains("### user \u2014 2026-11-29T14:05:00Z");
        assertThat(new String(Files.readAllBytes(dir.resolve("s1/MEMORY.md")), StandardCharsets.UTF_8)).contains("```text\nb\n```");
    }
}
