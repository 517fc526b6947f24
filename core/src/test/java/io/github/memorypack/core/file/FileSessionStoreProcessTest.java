package io.github.memorypack.core.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.file.FileSessionStore.Recovery;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Several JVMs on one folder, and JVMs killed with SIGKILL in the middle of appending. */
@Tag("slow")
class FileSessionStoreProcessTest {

    private static final int PROCESSES = 4;
    private static final int APPENDS = 250;
    private static final int KILLS = 20;

    @TempDir
    Path folder;

    @Test
    @Timeout(60)
    void should_keep_every_append_and_each_process_order_when_4_processes_append_to_one_session()
            throws Exception {
        List<Process> children = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            children.add(start("append", folder.toString(), "shared", String.valueOf(APPENDS), "p" + p));
        }
        for (Process child : children) {
            assertThat(readLine(child)).isEqualTo("ready");
        }
        for (Process child : children) { // release them together so they contend for the lock
            go(child);
        }
        for (Process child : children) {
            assertThat(readLine(child)).isEqualTo("done");
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isZero();
        }

        List<Entry> all = FileSessionStore.of(folder).read("shared", 0, Integer.MAX_VALUE);
        assertThat(all).hasSize(PROCESSES * APPENDS);
        assertThat(all).extracting(Entry::index).containsExactlyElementsOf(
                LongStream.range(0, PROCESSES * APPENDS).boxed().collect(Collectors.toList()));
        Map<String, Integer> next = new HashMap<>();
        for (Entry entry : all) {
            String[] parts = text(entry.message()).split(":");
            int expected = next.getOrDefault(parts[0], 0);
            assertThat(Integer.parseInt(parts[1])).as("order of process %s", parts[0]).isEqualTo(expected);
            next.put(parts[0], expected + 1);
        }
        assertThat(next).hasSize(PROCESSES).allSatisfy((tag, count) -> assertThat(count).isEqualTo(APPENDS));
    }

    @Test
    @Timeout(120)
    void should_keep_every_acknowledged_append_and_open_cleanly_when_appending_processes_are_killed()
            throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Map<String, Integer> acknowledged = new HashMap<>(); // tag -> number of acknowledged appends
        List<Recovery> recoveries = new ArrayList<>();
        // each child is started while its predecessor runs, to hide JVM start-up; it waits for "go"
        Process next = start("loop", folder.toString(), "crash", "k0");
        for (int kill = 0; kill < KILLS; kill++) {
            String tag = "k" + kill;
            Process child = next;
            assertThat(readLine(child)).isEqualTo("ready");
            go(child);
            next = kill + 1 < KILLS ? start("loop", folder.toString(), "crash", "k" + (kill + 1)) : null;
            int killAfter = 1 + random.nextInt(15);
            int acks = 0;
            while (acks < killAfter) {
                assertThat(readLine(child)).as("ack %d of %s (seed %d)", acks, tag, seed).isEqualTo("ack " + acks);
                acks++;
            }
            // SIGKILL, as Process.destroyForcibly() sends, but through the handle: Process.destroyForcibly()
            // also closes our end of the pipe, losing acknowledgements the child printed just before
            assertThat(child.toHandle().destroyForcibly()).isTrue();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            for (String line = readLineOrNull(child); line != null; line = readLineOrNull(child)) {
                assertThat(line).isEqualTo("ack " + acks); // acknowledgements printed before it died
                acks++;
            }
            acknowledged.put(tag, acks);

            FileSessionStore reopened = FileSessionStore.builder().directory(folder).onRecovery(recoveries::add)
                    .build();
            assertHistoryHolds(history(reopened.read("crash", 0, Integer.MAX_VALUE)), acknowledged, seed);
        }

        // every set-aside tail is in a side file, and a fresh store opens without repairs (reads never repair)
        for (Recovery recovery : recoveries) {
            assertThat(recovery.setAsideTo()).exists();
        }
        List<Recovery> later = new ArrayList<>();
        FileSessionStore fresh = FileSessionStore.builder().directory(folder).onRecovery(later::add).build();
        List<Entry> retained = fresh.read("crash", 0, Integer.MAX_VALUE);
        assertThat(later).isEmpty();
        assertThat(fresh.nextIndex("crash")).isEqualTo(retained.get(retained.size() - 1).index() + 1);
        List<Entry> history = history(retained);
        assertHistoryHolds(history, acknowledged, seed);
        System.out.printf("crash test: %d kills, %d torn tails set aside, %d entries (%d retained), seed %d%n",
                KILLS, recoveries.size(), history.size(), retained.size(), seed);
    }

    /**
     * The whole history: the archive of trimmed entries (its complete lines; a torn tail there only
     * repeats entries still in the log) followed by the retained log. Where a trim was killed after
     * archiving but before its rewrite, both hold the same entries, which must then be equal.
     */
    private List<Entry> history(List<Entry> retained) throws IOException {
        Map<Long, Entry> byIndex = new java.util.TreeMap<>();
        Path archive = folder.resolve("crash.jsonl.trimmed");
        if (Files.exists(archive)) {
            String text = Files.readString(archive, UTF_8);
            for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n")) {
                if (!line.isEmpty()) {
                    Entry entry = EntryCodec.decodeEntry(line.substring(RecordLines.HEADER)); // the archive holds record lines
                    assertThat(byIndex.put(entry.index(), entry)).as("archived twice: %s", entry.index()).isNull();
                }
            }
        }
        for (Entry entry : retained) {
            Entry archived = byIndex.put(entry.index(), entry);
            if (archived != null) {
                assertThat(entry).isEqualTo(archived);
            }
        }
        return new ArrayList<>(byIndex.values());
    }

    /**
     * Every acknowledged append is there; every append is whole (three entries in order); indices
     * are consecutive from 0; each process's appends are in order, with nothing after its last
     * acknowledged one but possibly the single append it was writing when killed.
     */
    private static void assertHistoryHolds(List<Entry> log, Map<String, Integer> acknowledged, long seed) {
        assertThat(log.size() % 3).as("whole appends only (seed %d)", seed).isZero();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < log.size(); i += 3) {
            String[] first = text(log.get(i).message()).split(":");
            String tag = first[0];
            int n = Integer.parseInt(first[1]);
            assertThat(n).as("order of %s (seed %d)", tag, seed).isEqualTo(seen.getOrDefault(tag, 0));
            assertThat(first[2]).isEqualTo("0");
            assertThat(first[3]).hasSize(StoreChild.LARGE);
            assertThat(text(log.get(i + 1).message())).isEqualTo(tag + ":" + n + ":1");
            assertThat(text(log.get(i + 2).message())).isEqualTo(tag + ":" + n + ":2");
            seen.put(tag, n + 1);
        }
        for (int i = 0; i < log.size(); i++) {
            assertThat(log.get(i).index()).as("index (seed %d)", seed).isEqualTo(i);
        }
        acknowledged.forEach((tag, acks) -> assertThat(seen.getOrDefault(tag, 0))
                .as("appends of %s kept (seed %d)", tag, seed).isBetween(acks, acks + 1));
    }

    private static String text(ChatMessage message) {
        return message instanceof AiMessage ? ((AiMessage) message).text() : ((UserMessage) message).singleText();
    }

    private Process start(String... args) throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xmx128m", "-cp", System.getProperty("java.class.path"), StoreChild.class.getName()));
        command.addAll(List.of(args));
        Path errors = Files.createTempFile(folder.getParent(), "child", ".err");
        Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        readers.put(process, new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8)));
        errorFiles.put(process, errors);
        return process;
    }

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process child : readers.keySet()) {
            child.toHandle().destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void go(Process child) throws IOException {
        Writer go = new OutputStreamWriter(child.getOutputStream(), UTF_8);
        go.write("go\n");
        go.flush();
    }

    private final Map<Process, BufferedReader> readers = new HashMap<>();
    private final Map<Process, Path> errorFiles = new HashMap<>();

    private String readLine(Process process) throws IOException {
        String line = readers.get(process).readLine();
        if (line == null) {
            throw new AssertionError("child ended early; its stderr:\n" + Files.readString(errorFiles.get(process)));
        }
        return line;
    }

    private String readLineOrNull(Process process) throws IOException {
        return readers.get(process).readLine();
    }
}
