package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Several JVMs append to one session at once; the file lock serializes them. */
@Tag("slow")
class MultiProcessAppendTest {

    private static final int PROCESSES = 3;
    private static final int APPENDS = 40;

    @TempDir
    Path dir;

    /** Child process: appends {@code APPENDS} messages named after its writer id, then exits. */
    public static void main(String[] args) {
        MemoryMdSessionStore store = MemoryMdSessionStore.of(Path.of(args[0]));
        for (int i = 0; i < APPENDS; i++) {
            store.append("shared", List.of(NewEntry.of(UserMessage.from(args[1] + "-" + i))));
            if (i == APPENDS / 2 && args[1].equals("p0")) {
                store.compact("shared", "halfway summary"); // a rewrite while the others append
            }
        }
    }

    @Test
    @Timeout(120)
    void should_keep_every_entry_and_each_writer_order_when_processes_append_concurrently() throws Exception {
        // given
        List<Process> children = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            children.add(new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                    "-cp", System.getProperty("java.class.path"), MultiProcessAppendTest.class.getName(),
                    dir.toString(), "p" + p).inheritIO().start());
        }
        // when
        for (Process child : children) {
            assertThat(child.waitFor(100, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isZero();
        }
        // then: archive(s) + live file hold every message once, in each writer's order
        List<String> all = new ArrayList<>();
        try (var archives = Files.list(dir.resolve("shared/archive"))) {
            for (Path archive : archives.sorted().toList()) {
                MemoryMdFormat.parse(Files.readString(archive)).forEach(e -> all.add(text(e)));
            }
        }
        MemoryMdFormat.parse(Files.readString(dir.resolve("shared/MEMORY.md"))).forEach(e -> all.add(text(e)));
        assertThat(all).hasSize(PROCESSES * APPENDS).doesNotHaveDuplicates();
        for (int p = 0; p < PROCESSES; p++) {
            String prefix = "p" + p + "-";
            List<String> own = all.stream().filter(t -> t.startsWith(prefix)).toList();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < APPENDS; i++) {
                expected.add(prefix + i);
            }
            assertThat(own).containsExactlyElementsOf(expected);
        }
        assertThat(MemoryMdSessionStore.of(dir).nextIndex("shared")).isEqualTo(PROCESSES * APPENDS);
    }

    private static String text(Entry e) {
        return ((UserMessage) e.message()).singleText();
    }
}
