package io.github.memorypack.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.memorymd.MemoryMdSessionStore;
import io.github.memorypack.replay.Strategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chat app driven through its input stream: a session, a restart, the commands. */
class ChatAppTest {

    @TempDir
    Path dir;

    private String chat(String input, String... options) {
        Map<String, String> values = new HashMap<>(ChatApp.parseArgs(options));
        values.put("dir", dir.resolve("sessions").toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChatApp.run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), values, Map.of());
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void should_continue_the_session_after_a_restart_and_export_it_when_driven_through_stdin() throws Exception {
        // given: a first run, session and strategy typed at the prompts
        String first = chat("ana\nwindow\nHi, I'm Ana from Porto.\n/quit\n");
        assertThat(first).contains("OFFLINE", "Session 'ana' with window (20 messages): new session",
                ChatApp.OFFLINE_LABEL + " You said \"Hi, I'm Ana from Porto.\"");

        // when: a restart on the same folder, another strategy, then the commands
        Path export = dir.resolve("out/ana.json");
        String second = chat("Where do I live?\n/stats\n/summary\n/sessions\n/export " + export + "\n/quit\n",
                "session=ana", "strategy=buffer");

        // then: the earlier turn is still there (3 entries: system, user, answer) and is sent again
        assertThat(second).contains("continuing, 3 messages stored",
                "the earliest of your messages I still see: \"Hi, I'm Ana from Porto.\"",
                "stored entries: 5", "(no summary yet: buffer does not summarize)", "* ana",
                "exported 5 entries to " + export.toAbsolutePath());
        String exported = Files.readString(export);
        assertThat(exported).contains("\"sessionId\"", "Hi, I'm Ana from Porto.", "Where do I live?");
    }

    @Test
    void should_summarize_and_keep_sessions_apart_when_using_the_memory_md_store() throws Exception {
        // given
        StringBuilder input = new StringBuilder();
        for (int i = 1; i <= 4; i++) {
            input.append("Message number ").append(i).append(" about trains.\n");
        }
        chat("bo\nsummary\n" + input + "/quit\n", "store=memory-md");

        // when
        String second = chat("/summary\n/stats\n/sessions\n/quit\n", "store=memory-md", "session=cy", "strategy=summary");
        String bo = chat("/summary\n/quit\n", "store=memory-md", "session=bo", "strategy=summary");

        // then
        assertThat(second).contains("Session 'cy' with summary (cap 500): new session", "summary: none", "  bo", "* cy");
        assertThat(bo).contains("continuing").contains("Message number 3 about trains");
        assertThat(Files.readString(MemoryMdSessionStore.of(dir.resolve("sessions")).memoryFile("bo")))
                .contains("## Interaction Log", "Message number 4 about trains.");
    }

    @Test
    void should_ask_again_when_the_strategy_is_mistyped_at_the_prompt() {
        // when: a typo, then a blank answer would be the default, but a second typo comes first
        String out = chat("ana\nsummary-bufer\nwindw\nwindow\nhello\n/quit\n");

        // then: each typo is named with the labels that would do, the prompt comes back, the chat goes on
        assertThat(out).contains("unknown strategy 'summary-bufer', expected one of " + Strategy.labels() + "; try again",
                "unknown strategy 'windw'", "Session 'ana' with window (20 messages): new session",
                ChatApp.OFFLINE_LABEL + " You said \"hello\"");
        assertThat(out.split("Strategy \\(", -1)).hasSize(4);
    }

    @Test
    void should_ask_for_the_strategy_when_the_option_is_mistyped() {
        // when
        String out = chat("\nhello\n/quit\n", "session=ana", "strategy=sumary");

        // then: the option's value is reported, the prompt asked, and its default taken for a blank answer
        assertThat(out).contains("strategy=sumary: unknown strategy 'sumary'", "Strategy (",
                "Session 'ana' with summary-buffer (2000 tokens): new session", "You said \"hello\"");
    }

    @Test
    void should_take_any_text_as_the_session_and_list_sessions_as_typed_when_they_are_not_plain_ids() {
        // given: two sessions whose names a store cannot use as they are
        chat("Zoë Müller\nbuffer\nHallo!\n/quit\n");
        chat("ana@example.com\nwindow\nOlá!\n/quit\n");

        // when: Zoë comes back
        String out = chat("Wie geht's?\n/sessions\n/stats\n/quit\n", "session=Zoë Müller", "strategy=buffer");

        // then: her conversation continues, and /sessions lists what was typed, not the encoded session ids
        assertThat(out).contains("Session 'Zoë Müller' with buffer: continuing, 3 messages stored",
                "the earliest of your messages I still see: \"Hallo!\"", "* Zoë Müller", "  ana@example.com",
                "stored entries: 5").doesNotContain("~");
    }

    @Test
    void should_say_why_and_go_on_when_an_export_path_cannot_be_written() throws Exception {
        // given: a regular file where the export's folder would be
        Path file = Files.writeString(dir.resolve("plain-file"), "x");

        // when: a folder under that file, and a name no file system takes (a NUL character)
        String out = chat("/export " + file + "/ana.json\n/export bad\u0000name.yaml\nstill here\n/quit\n",
                "session=ana", "strategy=buffer");

        // then
        assertThat(out).contains("cannot export to " + file + "/ana.json", "cannot export to bad\u0000name.yaml",
                "You said \"still here\"");
    }

    @Test
    void should_explain_unknown_commands_and_export_usage() {
        // when
        String out = chat("/nope\n/export\n/help\n/quit\n", "session=dee", "strategy=summary-buffer");

        // then
        assertThat(out).contains("unknown command /nope", "usage: /export <file>", "/stats  /summary");
    }
}
