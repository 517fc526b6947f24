package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** SIGKILLs a child JVM in the middle of its appends, again and again. */
@Tag("slow")
class CrashSafetyTest {

    private static final int KILLS = 20;

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void should_keep_every_acknowledged_batch_whole_and_parse_when_writer_is_killed_repeatedly() throws Exception {
        Random random = new Random(42);
        Map<String, Integer> acknowledged = new HashMap<>();
        for (int kill = 0; kill < KILLS; kill++) {
            // given: a writer that has acknowledged some batches
            String run = "r" + kill;
            Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                    "-cp", System.getProperty("java.class.path"), CrashWriter.class.getName(), dir.toString(), run)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            int wanted = 1 + random.nextInt(15);
            int acks = 0;
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while (acks < wanted && (line = out.readLine()) != null) {
                if (line.startsWith("ack ")) {
                    acks = Integer.parseInt(line.substring(4)) + 1;
                }
            }
            // when: SIGKILL, mid-append
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            acknowledged.put(run, acks);
            // then: every acknowledged batch is there, whole, and no batch is half there
            List<Entry> entries = MemoryMdSessionStore.of(dir).read("crash", 0, Integer.MAX_VALUE);
            assertBatchesWhole(entries, acknowledged);
        }
        // and the file parses strictly once the next writer has cut off the torn tail, if any
        MemoryMdSessionStore.of(dir).append("crash", List.of(NewEntry.of(UserMessage.from("after"))));
        List<Entry> parsed = MemoryMdFormat.parse(Files.readString(dir.resolve("crash/MEMORY.md")));
        assertBatchesWhole(parsed.subList(0, parsed.size() - 1), acknowledged);
        assertThat(parsed.get(parsed.size() - 1).message()).isEqualTo(UserMessage.from("after"));
    }

    private static void assertBatchesWhole(List<Entry> entries, Map<String, Integer> acknowledged) {
        Map<String, List<String>> batches = new HashMap<>();
        for (Entry e : entries) {
            String[] parts = ((UserMessage) e.message()).singleText().split(" ")[0].split("-");
            batches.computeIfAbsent(parts[0] + "-" + parts[1], k -> new ArrayList<>()).add(parts[2]);
        }
        for (List<String> batch : batches.values()) {
            assertThat(batch).containsExactly("a", "b", "c");
        }
        acknowledged.forEach((run, acks) -> {
            for (int n = 0; n < acks; n++) {
                assertThat(batches).as("acknowledged batch %s-%d", run, n).containsKey(run + "-" + n);
            }
        });
        List<Long> indices = entries.stream().map(Entry::index).toList();
        assertThat(indices).isSorted().doesNotHaveDuplicates();
    }
}
