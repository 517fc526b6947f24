package io.github.memorypack.core.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;

import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.file.FileSessionStore.Recovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FileSessionStoreTest {

    private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.123Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @TempDir
    Path tmp;

    private final List<Recovery> recoveries = new ArrayList<>();

    private Path folder() {
        return tmp.resolve("sessions");
    }

    private FileSessionStore open() {
        return FileSessionStore.builder().directory(folder()).clock(CLOCK).onRecovery(recoveries::add).build();
    }

    // ------------------------------------------------------------------ torn tails

    @Test
    void should_ignore_on_read_then_set_aside_on_write_and_report_torn_tail_when_last_line_has_no_newline()
            throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a", "b"));
        Path log = folder().resolve("s.jsonl");
        byte[] good = Files.readAllBytes(log);
        byte[] next = RecordLines.encode("{\"index\":2,\"id\":\"x\",\"ts\":\"2026-03-04T05:06:07.123Z\"}");
        String torn = new String(next, 0, 30, UTF_8);
        Files.writeString(log, torn, StandardOpenOption.APPEND);

        List<Entry> read = open().read("s", 0, 10);
        byte[] afterRead = Files.readAllBytes(log);
        FileSessionStore writer = open();
        writer.compareAndSetState("s", 0, SessionState.EMPTY);
        writer.append("s", texts("c"));

        assertThat(texts(read)).containsExactly("a", "b");
        assertThat(afterRead).hasSize(good.length + torn.length());
        assertThat(texts(open().read("s", 0, 10))).containsExactly("a", "b", "c");
        assertThat(recoveries).singleElement().satisfies(r -> {
            assertThat(r.sessionId()).isEqualTo("s");
            assertThat(r.file()).isEqualTo(log.toRealPath());
            assertThat(r.lineNumber()).isEqualTo(3);
            assertThat(r.offset()).isEqualTo(good.length);
            assertThat(r.length()).isEqualTo(torn.length());
            assertThat(r.detectedAt()).isEqualTo(NOW);
            assertThat(r.setAsideTo().getFileName().toString()).isEqualTo("s.jsonl.torn-20260304T050607123Z");
            assertThat(Files.readString(r.setAsideTo())).isEqualTo(torn);
        });
    }

    @Test
    void should_set_aside_zero_bytes_when_a_file_system_extended_the_log_without_its_data() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a"));
        Path log = folder().resolve("s.jsonl");
        Files.write(log, new byte[] {0, 0, 0, 0, 0}, StandardOpenOption.APPEND);

        FileSessionStore reopened = open();

        assertThat(reopened.nextIndex("s")).isEqualTo(1);
        assertThat(reopened.append("s", texts("b"))).extracting(Entry::index).containsExactly(1L);
        assertThat(recoveries).singleElement().satisfies(r -> assertThat(r.length()).isEqualTo(5));
        assertThat(texts(open().read("s", 0, 10))).containsExactly("a", "b");
        assertThat(recoveries).hasSize(1);
    }

    @Test
    void should_set_aside_whole_append_when_a_crash_cut_a_multi_entry_append_between_lines() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a"));
        Path log = folder().resolve("s.jsonl");
        long before = Files.size(log);
        store.append("s", texts("b1", "b2", "b3"));
        List<String> lines = Files.readAllLines(log);
        // what a crash after the first two lines of the second append leaves behind
        Files.writeString(log, lines.get(0) + "\n" + lines.get(1) + "\n" + lines.get(2) + "\n");

        FileSessionStore reopened = open();

        assertThat(texts(reopened.read("s", 0, 10))).containsExactly("a");
        assertThat(reopened.append("s", texts("c"))).extracting(Entry::index).containsExactly(1L);
        assertThat(recoveries).singleElement().satisfies(r -> {
            assertThat(r.lineNumber()).isEqualTo(2);
            assertThat(r.offset()).isEqualTo(before);
            assertThat(Files.readAllLines(r.setAsideTo())).containsExactly(lines.get(1), lines.get(2));
        });
    }

    @Test
    void should_set_aside_torn_tail_when_another_process_left_it_after_this_store_cached_the_log() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a"));
        Files.writeString(folder().resolve("s.jsonl"), "~0000", StandardOpenOption.APPEND);

        assertThat(store.append("s", texts("b"))).extracting(Entry::index).containsExactly(1L);

        assertThat(recoveries).hasSize(1);
        assertThat(texts(open().read("s", 0, 10))).containsExactly("a", "b");
    }

    @Test
    void should_not_fail_the_call_when_recovery_listener_throws() throws IOException {
        open().append("s", texts("a"));
        Files.writeString(folder().resolve("s.jsonl"), "~", StandardOpenOption.APPEND);
        FileSessionStore store = FileSessionStore.builder().directory(folder()).onRecovery(r -> {
            throw new IllegalStateException("listener bug");
        }).build();

        assertThat(store.append("s", texts("b"))).extracting(Entry::index).containsExactly(1L);
        assertThat(texts(store.read("s", 0, 10))).containsExactly("a", "b");
    }

    // ------------------------------------------------------------------ corruption

    @Test
    void should_fail_naming_file_and_line_and_drop_nothing_when_a_bad_line_has_good_lines_after_it()
            throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a"));
        store.append("s", texts("b"));
        store.append("s", texts("c"));
        Path log = folder().resolve("s.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(log));
        lines.set(1, lines.get(1).replace("\"b\"", "\"B\""));
        Files.write(log, lines);
        byte[] corrupt = Files.readAllBytes(log);

        FileSessionStore reopened = open();
        for (Consumer<FileSessionStore> call : List.<Consumer<FileSessionStore>>of(
                s -> s.read("s", 0, 10), s -> s.readLast("s", 1), s -> s.nextIndex("s"),
                s -> s.append("s", texts("d")), s -> s.trim("s", 1), s -> s.replace("s", texts("x")))) {
            assertThatThrownBy(() -> call.accept(reopened))
                    .isInstanceOfSatisfying(CorruptRecordException.class,
                        e -> assertThat(e.location()).contains("s.jsonl, line 2"))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("checksum mismatch");
        }

        assertThat(Files.readAllBytes(log)).isEqualTo(corrupt);
        assertThat(recoveries).isEmpty();
        assertThat(reopened.sessions()).containsExactly("s");
    }

    @Test
    void should_fail_naming_the_line_when_entries_are_out_of_order() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a", "b"));
        store.append("s", texts("c"));
        Path log = folder().resolve("s.jsonl");
        List<String> lines = Files.readAllLines(log);
        Files.write(log, List.of(lines.get(0), lines.get(2), lines.get(1)));

        assertThatThrownBy(() -> open().read("s", 0, 10))
                .isInstanceOfSatisfying(CorruptRecordException.class, e -> assertThat(e.location()).contains("line 2"));
    }

    @Test
    void should_fail_with_typed_error_when_state_file_is_unreadable() throws IOException {
        open().compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("k", "v")));
        Path file = folder().resolve("s.state.json");
        Files.writeString(file, Files.readString(file).replace("\"v\"", "\"w\""));

        assertThatThrownBy(() -> open().state("s"))
                .isInstanceOfSatisfying(CorruptRecordException.class,
                        e -> assertThat(e.location()).contains("s.state.json"))
                .hasMessageContaining("checksum mismatch");
    }

    // ------------------------------------------------------------------ bad ids

    static Stream<String> badIds() {
        return Stream.of("../x", "/etc/passwd", "a/b", "a*b", "..", "", "x".repeat(129), "a\u0000b");
    }

    @ParameterizedTest
    @MethodSource("badIds")
    void should_reject_id_and_create_no_file_when_session_id_is_bad(String badId) throws IOException {
        FileSessionStore store = open();
        List<String> before = listing(tmp);
        SessionState state = SessionState.EMPTY;

        List<Runnable> calls = List.of(
                () -> store.append(badId, texts("x")),
                () -> store.append(badId, texts("x"), "key"),
                () -> store.append(badId, List.of()),
                () -> store.read(badId, 0, 1),
                () -> store.readLast(badId, 1),
                () -> store.nextIndex(badId),
                () -> store.state(badId),
                () -> store.compareAndSetState(badId, 0, state),
                () -> store.replace(badId, texts("x")),
                () -> store.trim(badId, 1),
                () -> store.delete(badId));
        for (Runnable call : calls) {
            assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class);
        }

        assertThat(listing(tmp)).isEqualTo(before);
        assertThat(Files.exists(Path.of("/x"))).isFalse();
    }

    // ------------------------------------------------------------------ restart, other instances

    @Test
    void should_see_entries_state_and_keys_when_a_new_store_opens_the_same_folder() {
        FileSessionStore first = open();
        List<Entry> stored = first.append("s", List.of(NewEntry.of(UserMessage.from("q"), 3, Map.of("m", "1")),
                NewEntry.of(AiMessage.from("a"), 5)), "request-1");
        SessionState state = new SessionState(0, SystemMessage.from("Be brief."),
                new Summary("Alice likes tea.", 2, 4, NOW), Map.of("k", "v"));
        SessionState saved = first.compareAndSetState("s", 0, state).orElseThrow();

        FileSessionStore second = open();

        assertThat(second.read("s", 0, 10)).isEqualTo(stored);
        assertThat(second.state("s")).isEqualTo(saved);
        assertThat(second.append("s", texts("again"), "request-1")).isEqualTo(stored);
        assertThat(second.nextIndex("s")).isEqualTo(2);
        assertThat(second.compareAndSetState("s", 0, state)).isEmpty();
        assertThat(second.sessions()).containsExactly("s");
    }

    @Test
    void should_see_what_another_store_appended_trimmed_and_deleted_when_both_share_a_folder() {
        FileSessionStore a = open();
        FileSessionStore b = open();
        a.append("s", texts("a1"));
        assertThat(texts(b.read("s", 0, 10))).containsExactly("a1");

        b.append("s", texts("b1", "b2"));
        assertThat(texts(a.readLast("s", 2))).containsExactly("b1", "b2");
        assertThat(a.append("s", texts("a2"))).extracting(Entry::index).containsExactly(3L);

        b.trim("s", 2);
        assertThat(texts(a.read("s", 0, 10))).containsExactly("b2", "a2");
        a.replace("s", texts("r"));
        assertThat(b.read("s", 0, 10)).extracting(Entry::index).containsExactly(4L);
        b.compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("by", "b")));
        assertThat(a.state("s").attributes()).containsEntry("by", "b");

        a.delete("s");
        assertThat(b.read("s", 0, 10)).isEmpty();
        assertThat(b.state("s")).isEqualTo(SessionState.EMPTY);
        assertThat(b.append("s", texts("new"))).extracting(Entry::index).containsExactly(0L);
        assertThat(texts(a.read("s", 0, 10))).containsExactly("new");
    }

    @Test
    void should_parse_only_new_bytes_when_the_log_grew_since_it_was_cached() throws IOException {
        FileSessionStore writer = open();
        FileSessionStore reader = open();
        writer.append("s", texts("aaaa", "bbbb"));
        assertThat(texts(reader.read("s", 0, 10))).containsExactly("aaaa", "bbbb");
        Path log = folder().resolve("s.jsonl");
        // damage a line the reader has already parsed, keeping the size: only a full re-parse would notice
        String text = Files.readString(log);
        Files.writeString(log, text.replace("aaaa", "a\"a\"").replace("bbbb", "b\"b\""));

        writer.append("s", texts("cccc"));

        assertThat(texts(reader.read("s", 0, 10))).containsExactly("aaaa", "bbbb", "cccc");
        assertThat(texts(reader.readLast("s", 1))).containsExactly("cccc");
        assertThatThrownBy(() -> open().read("s", 0, 10)).isInstanceOf(CorruptRecordException.class);
    }

    @Test
    void should_stay_correct_when_more_sessions_are_used_than_are_cached() {
        FileSessionStore store = FileSessionStore.builder().directory(folder()).maxCachedSessions(1).build();
        for (int i = 0; i < 3; i++) {
            store.append("a", texts("a" + i));
            store.append("b", texts("b" + i));
        }

        assertThat(texts(store.read("a", 0, 10))).containsExactly("a0", "a1", "a2");
        assertThat(texts(store.readLast("b", 2))).containsExactly("b1", "b2");
    }

    @Test
    void should_keep_no_file_open_and_at_most_the_cache_size_of_sessions_when_many_sessions_are_used()
            throws IOException {
        // given
        Path descriptors = Path.of("/proc/self/fd");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(descriptors), "needs /proc/self/fd (Linux)");
        FileSessionStore store = FileSessionStore.builder().directory(folder()).maxCachedSessions(10).build();
        store.append("warm-up", texts("w"));
        List<Path> openBefore = openFilesUnder(descriptors, folder());

        // when: every call a memory makes, on 300 sessions
        for (int i = 0; i < 300; i++) {
            String session = "s" + i;
            store.append(session, texts("q" + i));
            store.compareAndSetState(session, store.state(session).version(),
                    store.state(session).withSystemMessage(SystemMessage.from("sys")));
            store.readLast(session, 5);
            store.append(session, texts("a" + i));
            store.read(session, 0, 10);
            store.nextIndex(session);
        }

        // then
        assertThat(store.cachedSessions()).isEqualTo(10);
        // only descriptors on the store's folder count: the JVM opens other files (jars, reports) as it likes
        assertThat(openFilesUnder(descriptors, folder())).hasSizeLessThanOrEqualTo(openBefore.size());
        assertThat(texts(store.read("s0", 0, 10))).containsExactly("q0", "a0");
    }

    private static List<Path> openFilesUnder(Path descriptors, Path folder) throws IOException {
        Path root = folder.toRealPath();
        List<Path> under = new ArrayList<>();
        try (Stream<Path> open = Files.list(descriptors)) {
            for (Path descriptor : open.collect(Collectors.toList())) {
                try {
                    Path target = Files.readSymbolicLink(descriptor);
                    if (target.startsWith(root)) {
                        under.add(target);
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor was closed between listing and reading (the listing's own, for one)
                }
            }
        }
        return under;
    }

    // ------------------------------------------------------------------ trim, replace, archive

    @Test
    void should_archive_trimmed_entries_and_keep_the_rest_durable_when_log_is_trimmed() throws IOException {
        FileSessionStore store = open();
        List<Entry> stored = store.append("s", texts("a", "b", "c", "d"));
        stored = new ArrayList<>(stored);
        stored.addAll(store.append("s", texts("e")));

        store.trim("s", 2);
        store.trim("s", 3);

        assertThat(archived("s")).isEqualTo(stored.subList(0, 3));
        FileSessionStore reopened = open();
        assertThat(reopened.read("s", 0, 10)).isEqualTo(stored.subList(3, 5));
        assertThat(reopened.append("s", texts("f"))).extracting(Entry::index).containsExactly(5L);
        assertThat(listing(folder())).doesNotContain("s.jsonl.tmp");
    }

    @Test
    void should_archive_old_entries_and_continue_indices_when_log_is_replaced() throws IOException {
        FileSessionStore store = open();
        List<Entry> old = store.append("s", texts("a", "b"), "k");

        store.replace("s", texts("x", "y"));
        store.replace("s", List.of());

        assertThat(archived("s")).extracting(Entry::index).containsExactly(0L, 1L, 2L, 3L);
        assertThat(archived("s").subList(0, 2)).isEqualTo(old);
        FileSessionStore reopened = open();
        assertThat(reopened.read("s", 0, 10)).isEmpty();
        assertThat(reopened.nextIndex("s")).isEqualTo(4);
        assertThat(reopened.append("s", texts("z"), "k")).extracting(Entry::index).containsExactly(4L);
    }

    @Test
    void should_not_archive_twice_when_an_earlier_trim_archived_but_did_not_rewrite() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a", "b", "c"));
        Path log = folder().resolve("s.jsonl");
        byte[] untrimmed = Files.readAllBytes(log);
        store.trim("s", 2);
        // a crash between archiving and the rename leaves the old log in place
        Files.write(log, untrimmed);

        open().trim("s", 3);

        assertThat(archived("s")).extracting(Entry::index).containsExactly(0L, 1L, 2L);
        assertThat(open().nextIndex("s")).isEqualTo(3);
    }

    @Test
    void should_set_aside_torn_archive_tail_when_a_trim_was_cut_short() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a", "b", "c"));
        store.trim("s", 1);
        Files.writeString(folder().resolve("s.jsonl.trimmed"), "~000001", StandardOpenOption.APPEND);

        open().trim("s", 2);

        assertThat(archived("s")).extracting(Entry::index).containsExactly(0L, 1L);
        assertThat(recoveries).singleElement()
                .satisfies(r -> assertThat(r.file().getFileName().toString()).isEqualTo("s.jsonl.trimmed"));
    }

    // ------------------------------------------------------------------ files, permissions, failures

    @Test
    void should_create_owner_only_folder_and_files_when_on_a_posix_file_system() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a", "b"));
        store.compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("k", "v")));
        store.trim("s", 1);
        Files.writeString(folder().resolve("s.jsonl"), "~", StandardOpenOption.APPEND);
        open().append("s", texts("c"));

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder()))).isEqualTo("rwx------");
        try (Stream<Path> files = Files.list(folder())) {
            List<Path> all = files.collect(Collectors.toList());
            assertThat(all).extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrder(
                    "s.jsonl", "s.state.json", "s.lock", "s.jsonl.trimmed", "s.jsonl.torn-20260304T050607123Z");
            for (Path file : all) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).as("%s", file)
                        .isEqualTo("rw-------");
            }
        }
    }

    @Test
    void should_list_only_sessions_when_folder_holds_other_files() throws IOException {
        FileSessionStore store = open();
        store.append("b.trimmed", texts("x"));
        store.append("a", texts("x"));
        store.trim("a", 1);
        store.compareAndSetState("c", 0, SessionState.EMPTY);
        Files.writeString(folder().resolve("notes.txt"), "hi");
        Files.writeString(folder().resolve("bad id.jsonl"), "");
        Files.writeString(folder().resolve("a.jsonl.torn-20260101T000000000Z"), "{");

        assertThat(store.sessions()).containsExactly("a", "b.trimmed", "c");
    }

    @Test
    void should_remove_every_file_but_the_lock_when_session_is_deleted() throws IOException {
        FileSessionStore store = open();
        store.append("s", texts("a", "b"));
        store.append("s.jsonl.torn-x", texts("other"));
        store.compareAndSetState("s", 0, SessionState.EMPTY);
        store.trim("s", 1);
        Files.writeString(folder().resolve("s.jsonl"), "~", StandardOpenOption.APPEND);
        open().append("s", texts("c"));

        store.delete("s");

        assertThat(listing(folder())).containsExactlyInAnyOrder("s.lock", "s.jsonl.torn-x.jsonl", "s.jsonl.torn-x.lock");
        assertThat(store.sessions()).containsExactly("s.jsonl.torn-x");
    }

    @Test
    void should_change_nothing_and_chain_the_cause_when_the_state_cannot_be_written() throws IOException {
        FileSessionStore store = open();
        SessionState saved = store.compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("n", "1")))
                .orElseThrow();
        Files.createDirectory(folder().resolve("s.state.json.tmp"));

        assertThatThrownBy(() -> store.compareAndSetState("s", 1, SessionState.EMPTY))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("'s'")
                .hasCauseInstanceOf(IOException.class);

        assertThat(store.state("s")).isEqualTo(saved);
        assertThat(open().state("s")).isEqualTo(saved);
    }

    @Test
    void should_fail_and_store_nothing_when_the_log_cannot_be_written() throws IOException {
        FileSessionStore store = open();
        Files.createDirectories(folder().resolve("s.jsonl"));

        assertThatThrownBy(() -> store.append("s", texts("a"))).isInstanceOf(StoreException.class)
                .hasCauseInstanceOf(IOException.class);

        Files.delete(folder().resolve("s.jsonl"));
        assertThat(store.read("s", 0, 10)).isEmpty();
        assertThat(store.append("s", texts("b"))).extracting(Entry::index).containsExactly(0L);
    }

    @Test
    void should_reject_bad_options_when_building() throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");

        assertThatThrownBy(() -> FileSessionStore.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("directory");
        assertThatThrownBy(() -> FileSessionStore.builder().directory(file).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileSessionStore.builder().directory(folder()).maxCachedSessions(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileSessionStore.builder().directory(folder()).clock(null).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileSessionStore.builder().directory(folder()).onRecovery(null).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Files.exists(folder())).isFalse();
    }

    // ------------------------------------------------------------------ helpers

    private List<Entry> archived(String sessionId) throws IOException {
        return Files.readAllLines(folder().resolve(sessionId + ".jsonl.trimmed"), UTF_8).stream()
                .map(line -> EntryCodec.decodeEntry(line.substring(RecordLines.HEADER))).collect(Collectors.toList());
    }

    private static List<String> listing(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.map(p -> folder.relativize(p).toString()).filter(s -> !s.isEmpty()).sorted()
                    .collect(Collectors.toList());
        }
    }

    static List<NewEntry> texts(String... texts) {
        return Arrays.stream(texts).map(t -> NewEntry.of(UserMessage.from(t))).collect(Collectors.toList());
    }

    static List<String> texts(List<Entry> entries) {
        return entries.stream().map(e -> ((UserMessage) e.message()).singleText()).collect(Collectors.toList());
    }
}
