package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertState;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.integration.TwoRequests.Hold;
import io.github.memorypack.integration.TwoRequests.Setting;
import io.github.memorypack.integration.TwoRequests.Step;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ConcurrentRequestsTest} with the two requests in two JVMs on one file-store folder: request A
 * runs here and is held at each step of its tool round; request B runs in a JVM of its own
 * ({@link SecondRequestProcess}) with its own store instance, memories and {@code AiServices}. What
 * one process knows of the other's running turn comes from the log alone; {@code queue} waits by
 * reading it again. Every strategy, every setting, every step. Slow: one JVM per case.
 */
@Tag("slow")
class ConcurrentRequestsAcrossProcessesTest extends ShopTestBase {

    static Stream<Arguments> cases() {
        return Arrays.stream(Strategy.values()).flatMap(strategy -> Arrays.stream(Setting.values())
                .flatMap(setting -> Arrays.stream(Step.values()).map(step -> Arguments.of(strategy, setting, step))));
    }

    @ParameterizedTest(name = "{0}, {1}, B starts in another JVM at {2}")
    @MethodSource("cases")
    void should_keep_each_request_to_its_own_turn_when_the_second_request_runs_in_another_process(Strategy strategy,
            Setting setting, Step step) throws Exception {
        // given
        Path folder = dir.resolve("file-store");
        store = io.github.memorypack.core.file.FileSessionStore.of(folder);
        TwoRequests.Pair pair = TwoRequests.Pair.warmedUp(this, strategy, setting, step);
        Hold hold = pair.hold();
        Shop.Assistant assistant = pair.assistant();
        FutureTask<String> a = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.A));
        new Thread(a, "request A").start();
        Process b = null;
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        try {
            hold.awaitReached();
            int heldAt = server.requestCount();

            // when: B starts in another JVM while A is held
            b = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-cp",
                    System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                    SecondRequestProcess.class.getName(), folder.toString(), server.baseUrl(), strategy.name(),
                    setting.name()).redirectError(dir.resolve("b.err").toFile()).start();
            read(b, lines);
            if (setting == Setting.QUEUE) {
                assertThat(lines.poll(30, TimeUnit.SECONDS)).as("B's first line (%s)", errors()).isEqualTo("QUEUED");
                assertThat(b.isAlive()).as("B still waiting while A is held").isTrue();
                assertThat(server.requestCount()).as("model calls B made while A is held").isEqualTo(heldAt);
            } else {
                assertThat(b.waitFor(30, TimeUnit.SECONDS)).as("B done while A is held (%s)", errors()).isTrue();
                if (setting == Setting.REFUSE) {
                    assertThat(server.requestCount()).as("model calls made by the refused request").isEqualTo(heldAt);
                }
            }
        } finally {
            hold.release();
        }
        String answerA = a.get(10, TimeUnit.SECONDS);
        assertThat(b.waitFor(30, TimeUnit.SECONDS)).as("B ended (%s)", errors()).isTrue();
        List<String> outputB = new ArrayList<>();
        lines.drainTo(outputB);
        outputB.remove("QUEUED");

        // then
        String verdict = outputB.get(0);
        List<String> toolItems = pair.checks(tools);
        outputB.stream().filter(line -> line.startsWith("TOOL ")).map(line -> line.substring(5)).forEach(toolItems::add);
        List<Request> requests = requestsFrom(pair.firstRequest());
        TwoRequests.assertEachRequestKeepsToItsOwnTurn(requests, toolItems, setting);
        switch (setting) {
            case QUEUE -> {
                assertThat(verdict).startsWith("ANSWER Answer ");
                List<String> firstOfB = TwoRequests.of(requests, TwoRequests.B).get(0).history();
                assertThat(firstOfB).as("B continues from A's closed turn").contains("user: " + TwoRequests.A)
                        .contains("assistant: " + answerA);
            }
            case REFUSE -> {
                assertThat(verdict).startsWith("BUSY ");
                assertThat(log()).noneMatch(e -> PathAssertions.describe(e.message()).contains(TwoRequests.B));
            }
            case BRANCH -> {
                assertThat(verdict).startsWith("ANSWER Answer ");
                assertThat(TwoRequests.of(requests, TwoRequests.B)).allSatisfy(r -> assertThat(r.history())
                        .noneMatch(line -> line.contains(TwoRequests.A) || line.contains(TwoRequests.A_ITEM)));
            }
        }
        assertKept(pair.before(), log());
        assertState(store, SESSION, pair.summary());
    }

    /** Copies the process's output lines into {@code lines} on a thread of its own. */
    private static void read(Process process, BlockingQueue<String> lines) {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.matches("(QUEUED|ANSWER|BUSY|ERROR|TOOL)\\b.*")) { // not a log line
                        lines.add(line);
                    }
                }
            } catch (java.io.IOException e) {
                lines.add("ERROR reading B's output: " + e);
            }
        }, "output of request B");
        reader.setDaemon(true);
        reader.start();
    }

    private String errors() {
        File errors = dir.resolve("b.err").toFile();
        try {
            return errors.exists() ? "B's stderr: " + java.nio.file.Files.readString(errors.toPath()) : "no stderr";
        } catch (java.io.IOException e) {
            return "stderr unreadable: " + e;
        }
    }
}
