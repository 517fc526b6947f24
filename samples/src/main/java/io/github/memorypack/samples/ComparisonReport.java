package io.github.memorypack.samples;

import io.github.memorypack.replay.Conversation;
import io.github.memorypack.replay.Replay;
import io.github.memorypack.replay.Strategy;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleBiFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The comparison's outputs: a Markdown table (printed and saved), a PNG line chart of the tokens
 * sent per request, one line per strategy, and an HTML page with both.
 *
 * @param results   one per strategy, in the order compared
 * @param header    what was run (mode, conversation, store), one line
 * @param table     the Markdown table
 * @param tableFile where the table was written
 * @param chartFile where the chart was written
 * @param htmlFile  where the HTML report was written
 */
public record ComparisonReport(List<Replay.Result> results, String header, String table, Path tableFile,
                               Path chartFile, Path htmlFile, Path costChartFile, double cachedPriceFactor) {

    public static final String TABLE_FILE = "comparison.md";
    public static final String CHART_FILE = "tokens-per-request.png";
    public static final String COST_CHART_FILE = "effective-cost-per-request.png";
    public static final String HTML_FILE = "report.html";
    public static final int CHART_WIDTH = 1000;
    public static final int CHART_HEIGHT = 560;

    /** The table's columns, in order. */
    public static final List<String> COLUMNS = List.of("strategy", "requests", "mean tokens/request",
            "p95", "max", "total tokens", "% of buffer", "summarizer calls", "summarizer tokens",
            "total incl. summarizer", "probe facts in context", "cached-prefix share", "effective input tokens",
            "effective % of buffer");
    /** The extra column when a real model reported its token usage. */
    public static final String REPORTED_COLUMN = "provider-reported input tokens";
    /** The extra column when a real model reported cached input tokens. */
    public static final String REPORTED_CACHED_COLUMN = "provider-reported cached tokens";

    private static final Color[] COLORS = {new Color(0xD6, 0x27, 0x28), new Color(0x1F, 0x77, 0xB4),
        new Color(0x2C, 0xA0, 0x2C), new Color(0xFF, 0x7F, 0x0E), new Color(0x94, 0x67, 0xBD),
        new Color(0x8C, 0x56, 0x4B), new Color(0xE3, 0x77, 0xC2), new Color(0x17, 0xBE, 0xCF)};

    public ComparisonReport {
        results = List.copyOf(results);
    }

    /** Builds the table, chart and page for {@code results} and writes them into {@code folder}. */
    static ComparisonReport write(Path folder, String mode, Conversation conversation, StoreKind store,
                                  List<Replay.Result> results, double cachedPriceFactor) {
        String header = String.format(Locale.ROOT, "%s — %d turns in %d sittings, store: %s; cached input tokens"
                        + " priced at %.2f of uncached ones", mode, conversation.turns().size(),
                conversation.sittings().size(), store.label(), cachedPriceFactor);
        String table = table(results, cachedPriceFactor);
        try {
            Files.createDirectories(folder);
            Path tableFile = folder.resolve(TABLE_FILE);
            Files.writeString(tableFile, table, StandardCharsets.UTF_8);
            Path chartFile = folder.resolve(CHART_FILE);
            try (OutputStream out = Files.newOutputStream(chartFile)) {
                BitmapEncoder.saveBitmap(chart(results), out, BitmapEncoder.BitmapFormat.PNG);
            }
            Path costChartFile = folder.resolve(COST_CHART_FILE);
            try (OutputStream out = Files.newOutputStream(costChartFile)) {
                BitmapEncoder.saveBitmap(costChart(results, cachedPriceFactor), out, BitmapEncoder.BitmapFormat.PNG);
            }
            Path htmlFile = folder.resolve(HTML_FILE);
            Files.writeString(htmlFile, html(header, results, cachedPriceFactor), StandardCharsets.UTF_8);
            return new ComparisonReport(results, header, table, tableFile, chartFile, htmlFile, costChartFile,
                    cachedPriceFactor);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + folder, e);
        }
    }

    /** {@link #COLUMNS}, plus the provider-reported input tokens when a real model reported them. */
    static List<String> columns(List<Replay.Result> results) {
        List<String> columns = new ArrayList<>(COLUMNS);
        if (results.stream().anyMatch(r -> r.reportedTotal() >= 0)) {
            columns.add(REPORTED_COLUMN);
        }
        if (results.stream().anyMatch(r -> r.reportedCachedTotal() >= 0)) {
            columns.add(REPORTED_CACHED_COLUMN);
        }
        return columns;
    }

    /** One row per strategy, as the cells of {@link #columns}. */
    static List<List<String>> rows(List<Replay.Result> results, double cachedPriceFactor) {
        Replay.Result buffer = results.stream().filter(r -> r.strategy().equals(Strategy.BUFFER.label())).findFirst()
                .orElse(results.get(0));
        long baseline = buffer.totalTokens();
        double effectiveBaseline = buffer.effectiveTokens(cachedPriceFactor);
        boolean reported = columns(results).contains(REPORTED_COLUMN);
        boolean reportedCached = columns(results).contains(REPORTED_CACHED_COLUMN);
        List<List<String>> rows = new ArrayList<>();
        for (Replay.Result r : results) {
            List<String> row = new ArrayList<>(List.of(r.strategy(), number(r.requests()),
                    number(Math.round(r.meanTokens())), number(r.p95Tokens()), number(r.maxTokens()),
                    number(r.totalTokens()), String.format(Locale.ROOT, "%.1f%%", 100.0 * r.totalTokens() / baseline),
                    number(r.summarizerCalls()), number(r.summarizerTokens()), number(r.allTokens()),
                    r.factsFound() + "/" + r.factsTotal(), String.format(Locale.ROOT, "%.1f%%", 100 * r.cachedShare()),
                    number(Math.round(r.effectiveTokens(cachedPriceFactor))),
                    String.format(Locale.ROOT, "%.1f%%", 100 * r.effectiveTokens(cachedPriceFactor) / effectiveBaseline)));
            if (reported) {
                row.add(r.reportedTotal() < 0 ? "-" : number(r.reportedTotal()));
            }
            if (reportedCached) {
                row.add(r.reportedCachedTotal() < 0 ? "-" : number(r.reportedCachedTotal()));
            }
            rows.add(List.copyOf(row));
        }
        return rows;
    }

    static String table(List<Replay.Result> results, double cachedPriceFactor) {
        List<String> columns = columns(results);
        StringBuilder out = new StringBuilder();
        out.append("| ").append(String.join(" | ", columns)).append(" |\n|");
        for (int i = 0; i < columns.size(); i++) {
            out.append(i == 0 ? "---|" : "---:|");
        }
        out.append('\n');
        for (List<String> row : rows(results, cachedPriceFactor)) {
            out.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        return out.toString();
    }

    static XYChart chart(List<Replay.Result> results) {
        return perRequestChart("Prompt tokens per request over the conversation", "prompt tokens (log scale)",
                results, (result, i) -> result.tokens()[i]);
    }

    /**
     * What each request costs in uncached-token units (uncached + factor x cached): the effective-cost
     * view, one line per strategy.
     */
    static XYChart costChart(List<Replay.Result> results, double cachedPriceFactor) {
        return perRequestChart(String.format(Locale.ROOT, "Effective input cost per request (cached tokens at %.2f)",
                        cachedPriceFactor), "uncached-token equivalents (log scale)", results,
                (result, i) -> Math.max(1, Replay.effectiveTokens(result.tokens()[i], result.cachedTokens()[i],
                        cachedPriceFactor)));
    }

    /** One line per strategy over the requests, on a log scale; {@code value} gives request i's point. */
    private static XYChart perRequestChart(String title, String yAxisTitle, List<Replay.Result> results,
                                           ToDoubleBiFunction<Replay.Result, Integer> value) {
        XYChart chart = new XYChartBuilder().width(CHART_WIDTH).height(CHART_HEIGHT).title(title)
                .xAxisTitle("request (turn)").yAxisTitle(yAxisTitle).build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridLinesColor(new Color(0xE0, 0xE0, 0xE0));
        chart.getStyler().setAntiAlias(true);
        chart.getStyler().setXAxisTickMarkSpacingHint(80);
        for (int s = 0; s < results.size(); s++) {
            Replay.Result result = results.get(s);
            int requests = result.tokens().length;
            double[] x = new double[requests];
            double[] y = new double[requests];
            for (int i = 0; i < requests; i++) {
                x[i] = i + 1;
                y[i] = value.applyAsDouble(result, i);
            }
            chart.addSeries(result.strategy(), x, y).setMarker(SeriesMarkers.NONE)
                    .setLineColor(COLORS[s % COLORS.length]);
        }
        return chart;
    }

    static String html(String header, List<Replay.Result> results, double cachedPriceFactor) {
        StringBuilder html = new StringBuilder("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>Memory Pack token-usage comparison</title>
                <style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}
                th,td{border:1px solid #ccc;padding:4px 8px}td.n{text-align:right}th{background:#f4f4f4}</style>
                </head><body>
                <h1>Memory Pack token-usage comparison</h1>
                """);
        html.append("<p>").append(escape(header)).append("</p>\n<table id=\"comparison\">\n<tr>");
        for (String column : columns(results)) {
            html.append("<th>").append(escape(column)).append("</th>");
        }
        html.append("</tr>\n");
        for (List<String> row : rows(results, cachedPriceFactor)) {
            html.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                html.append(i == 0 ? "<td>" : "<td class=\"n\">").append(escape(row.get(i))).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n<p><img src=\"").append(CHART_FILE).append("\" width=\"").append(CHART_WIDTH)
                .append("\" height=\"").append(CHART_HEIGHT)
                .append("\" alt=\"prompt tokens per request, one line per strategy\"></p>\n");
        html.append("<p><img src=\"").append(COST_CHART_FILE).append("\" width=\"").append(CHART_WIDTH)
                .append("\" height=\"").append(CHART_HEIGHT)
                .append("\" alt=\"effective input cost per request, one line per strategy\"></p>\n");
        html.append("<p>The cached-prefix share is the part of each request's prompt that repeats the previous"
                + " request's, in whole blocks of 128 tokens from 1,024 on, as OpenAI's prompt cache serves it;"
                + " effective input tokens price those cached tokens at the factor above.</p>\n");
        html.append("<p>Tokens are the prompt tokens of each request (our estimate). Probe facts are the "
                + "probe answers' facts found in the request the model receives at that probe.</p>\n");
        for (Replay.Result r : results) {
            if (!r.missingFacts().isEmpty()) {
                html.append("<p>").append(escape(r.strategy())).append(" lost: ")
                        .append(escape(String.join(", ", r.missingFacts()))).append("</p>\n");
            }
        }
        return html.append("</body></html>\n").toString();
    }

    private static String number(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
