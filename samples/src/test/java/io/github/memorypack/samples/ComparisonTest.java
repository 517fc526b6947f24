package io.github.memorypack.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.memorypack.replay.Conversation;
import io.github.memorypack.replay.Replay;
import io.github.memorypack.replay.Strategy;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The main demo, offline on a shortened conversation, with every output checked. */
class ComparisonTest {

    private static final int TURNS = 24;

    @TempDir
    Path out;

    private ComparisonReport run(String... args) {
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "turns=" + TURNS;
        all[args.length + 1] = "out=" + out;
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        // a key in the environment must not matter with offline=true
        ComparisonReport report = Comparison.run(Comparison.Options.parse(all, Map.of()),
                Map.of("OPENAI_API_KEY", "sk-not-used"), new PrintStream(console, true, StandardCharsets.UTF_8));
        printed = console.toString(StandardCharsets.UTF_8);
        return report;
    }

    private String printed;

    @Test
    void should_write_consistent_table_chart_and_html_when_run_offline() throws Exception {
        // when
        ComparisonReport report = run("offline=true");

        // then: the table has the columns and one consistent row per strategy
        List<String> lines = report.table().lines().toList();
        assertThat(lines.get(0)).isEqualTo("| " + String.join(" | ", ComparisonReport.COLUMNS) + " |");
        assertThat(lines).hasSize(2 + Strategy.values().length);
        int requests = TURNS + 2;
        for (int i = 0; i < Strategy.values().length; i++) {
            Replay.Result result = report.results().get(i);
            List<String> cells = cells(lines.get(2 + i));
            assertThat(cells).hasSize(ComparisonReport.COLUMNS.size());
            assertThat(cells.get(0)).startsWith(Strategy.values()[i].label());
            long mean = number(cells.get(2));
            long p95 = number(cells.get(3));
            long max = number(cells.get(4));
            long total = number(cells.get(5));
            assertThat(number(cells.get(1))).isEqualTo(requests).isEqualTo(result.tokens().length);
            assertThat(mean).isLessThanOrEqualTo(p95);
            assertThat(p95).isLessThanOrEqualTo(max);
            assertThat(total).isEqualTo(Arrays.stream(result.tokens()).sum());
            assertThat(Math.abs(mean * requests - total)).isLessThanOrEqualTo(requests);
            assertThat(max).isEqualTo(Arrays.stream(result.tokens()).max().orElseThrow());
            assertThat(number(cells.get(9))).isEqualTo(total + number(cells.get(8)));
            assertThat(cells.get(10)).matches("[0-4]/4");
            boolean summarizes = Strategy.values()[i].summarizes();
            assertThat(number(cells.get(7)) > 0).isEqualTo(summarizes);
            assertThat(number(cells.get(8)) > 0).isEqualTo(summarizes);
        }
        List<String> buffer = cells(lines.get(2));
        assertThat(buffer.get(6)).isEqualTo("100.0%");
        assertThat(buffer.get(10)).isEqualTo("4/4");
        assertThat(cells(lines.get(3)).get(10)).as("a 20-message window has forgotten the first turns").isEqualTo("0/4");
        int summaryBuffer = 2 + Strategy.SUMMARY_BUFFER.ordinal();
        assertThat(cells(lines.get(summaryBuffer)).get(10)).as("summary-buffer keeps the facts").isEqualTo("4/4");
        assertThat(number(cells(lines.get(summaryBuffer)).get(5))).isLessThan(number(buffer.get(5)));
        // recall brings back what the window let go of, for less than the buffer costs
        List<String> windowRecall = cells(lines.get(2 + Strategy.WINDOW_RECALL.ordinal()));
        // (recall's default is lexical: it finds the early facts the probe asks about with a word they share)
        assertThat(windowRecall.get(10)).as("window + recall finds early facts again").isIn("2/4", "3/4", "4/4");
        assertThat(number(windowRecall.get(5))).isLessThan(number(buffer.get(5)));
        // prompt caches: the chunked window shares far more of each request's prefix than the sliding one
        double sliding = percent(cells(lines.get(2 + Strategy.WINDOW_TOKENS.ordinal())).get(11));
        double chunked = percent(cells(lines.get(2 + Strategy.WINDOW_CHUNKED.ordinal())).get(11));
        assertThat(chunked).isGreaterThan(sliding);

        // the files
        assertThat(Files.readString(report.tableFile())).isEqualTo(report.table());
        BufferedImage chart = ImageIO.read(report.chartFile().toFile());
        assertThat(chart).isNotNull();
        assertThat(chart.getWidth()).isEqualTo(ComparisonReport.CHART_WIDTH);
        assertThat(chart.getHeight()).isEqualTo(ComparisonReport.CHART_HEIGHT);
        String html = Files.readString(report.htmlFile());
        assertThat(html).contains("<table id=\"comparison\">", "<img src=\"" + ComparisonReport.CHART_FILE + "\"");
        for (List<String> row : ComparisonReport.rows(report.results(), Replay.DEFAULT_CACHED_PRICE_FACTOR)) {
            assertThat(html).contains("<td>" + row.get(0) + "</td>", "<td class=\"n\">" + row.get(5) + "</td>");
        }
        assertThat(printed).contains("OFFLINE", report.table(), TURNS + 2 + "/" + (TURNS + 2) + " turns");
    }

    @Test
    void should_give_the_same_numbers_when_run_twice_and_on_every_store() {
        // when
        String file = run("offline=true", "store=file").table();
        String again = run("offline=true", "store=file").table();
        String memoryMd = run("offline=true", "store=memory-md").table();
        String memory = run("offline=true", "store=memory").table();

        // then
        assertThat(again).isEqualTo(file);
        assertThat(memoryMd).isEqualTo(file);
        assertThat(memory).isEqualTo(file);
    }

    @Test
    void should_give_the_same_figures_when_the_strategies_run_side_by_side_or_one_at_a_time() {
        // when: every strategy, recall included, four at once and one after the other
        ComparisonReport parallel = run("offline=true", "threads=4");
        String parallelOutput = printed;
        ComparisonReport sequential = run("offline=true", "threads=1");

        // then: the same table, the same files' figures, and one line per strategy either way
        assertThat(parallel.table()).isEqualTo(sequential.table());
        for (int i = 0; i < Strategy.values().length; i++) {
            assertThat(parallel.results().get(i).tokens()).isEqualTo(sequential.results().get(i).tokens());
            assertThat(parallel.results().get(i).cachedTokens()).isEqualTo(sequential.results().get(i).cachedTokens());
        }
        assertThat(parallelOutput).contains("Replaying 8 strategies, 4 at a time:");
        assertThat(printed).contains("Replaying 8 strategies, 1 at a time:");
        for (Replay.Result result : parallel.results()) {
            assertThat(parallelOutput).containsOnlyOnce("  " + result.strategy() + " ");
        }
    }

    @Test
    void should_compare_only_the_chosen_strategies_with_the_given_limits() {
        // when
        ComparisonReport report = run("--strategies=window,summary-buffer", "window=4", "maxTokens=800", "offline");

        // then
        assertThat(report.results()).extracting(Replay.Result::strategy)
                .containsExactly("window (4 messages)", "summary-buffer (800 tokens)");
        assertThat(report.results().get(0).maxTokens()).isLessThan(report.results().get(1).maxTokens());
    }

    @Test
    void should_let_arguments_win_over_system_properties_and_reject_unknown_options() {
        // when
        Comparison.Options options = Comparison.Options.parse(new String[] {"turns=7"},
                Map.of("comparison.turns", "9", "comparison.store", "memory", "memorypack.comparison.out", "x/y"));

        // then
        assertThat(options.maxTurns()).isEqualTo(7);
        assertThat(options.store()).isEqualTo(StoreKind.MEMORY);
        assertThat(options.out()).isEqualTo(Path.of("x/y"));
        assertThat(options.strategies()).containsExactly(Strategy.values());
        assertThatThrownBy(() -> Comparison.Options.parse(new String[] {"colour=red"}, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("colour");
        assertThatThrownBy(() -> Comparison.Options.parse(new String[] {"turns=many"}, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("turns");
        assertThatThrownBy(() -> Comparison.Options.parse(new String[] {"strategies=lru"}, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lru");
        assertThatThrownBy(() -> Comparison.Options.parse(new String[] {"threads=-1"}, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threads");
    }

    @Test
    void should_use_the_real_model_and_say_so_when_a_key_is_set() throws Exception {
        // given: an OpenAI-compatible server that answers every request with 10 prompt tokens
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            for (int i = 0; i < 4; i++) {
                server.enqueueText("answer " + i);
            }
            Map<String, String> environment = Map.of("OPENAI_API_KEY", "test-key",
                    "OPENAI_BASE_URL", server.baseUrl());
            ByteArrayOutputStream console = new ByteArrayOutputStream();

            // when
            ComparisonReport report = Comparison.run(Comparison.Options.parse(
                            new String[] {"turns=2", "strategies=buffer", "out=" + out}, Map.of()),
                    environment, new PrintStream(console, true, StandardCharsets.UTF_8));

            // then
            assertThat(console.toString(StandardCharsets.UTF_8)).contains("ONLINE: real model gpt-4o-mini");
            assertThat(server.requestCount()).isEqualTo(4);
            assertThat(server.takeHistory()).containsExactly("system: " + Replay.SYSTEM.text(),
                    "user: " + Conversation.builtIn().turns().get(0).user());
            assertThat(server.takeHistory()).contains("assistant: answer 0");
            assertThat(report.results().get(0).reportedTotal()).isEqualTo(40);
            assertThat(report.table().lines().findFirst().orElseThrow()).endsWith("| " + ComparisonReport.REPORTED_COLUMN + " |");
            assertThat(report.table()).contains("| 40 |");
            assertThat(Files.readString(report.htmlFile())).contains("<th>" + ComparisonReport.REPORTED_COLUMN + "</th>",
                    "<td class=\"n\">40</td>");
        }
    }

    private static List<String> cells(String row) {
        String inner = row.substring(2, row.length() - 2);
        return Arrays.stream(inner.split(" \\| ")).map(String::trim).toList();
    }

    private static double percent(String cell) {
        return Double.parseDouble(cell.replace("%", ""));
    }

    private static long number(String cell) {
        return Long.parseLong(cell.replace(",", "").replace("%", ""));
    }
}
