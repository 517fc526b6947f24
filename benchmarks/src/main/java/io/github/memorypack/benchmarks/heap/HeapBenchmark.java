package io.github.memorypack.benchmarks.heap;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.memory.ChatMemoryAccess;
import io.github.memorypack.benchmarks.redis.BenchmarkRedis;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.redis.RedisSessionStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import javax.management.ObjectName;
import redis.clients.jedis.JedisPooled;

/**
 * How much heap a long-running server keeps after it has seen many sessions: 100,000 sessions (a few
 * turns each) through one real {@code AiServices} with an offline, deterministic {@link ChatModel},
 * heap used after full GCs at checkpoints (1k, 10k, 50k, 100k sessions), for our
 * {@link BufferChatMemory} provider on a {@link FileSessionStore} (several view cache sizes) and on a
 * {@link RedisSessionStore}, and a {@link SummaryBufferChatMemory} on the file store (each session folds
 * once, offline, with {@code Summarizer.extractive}), against LangChain4j's {@link MessageWindowChatMemory} on its default
 * in-memory store measured in the same run. It also measures the memory objects alone (no store, no
 * {@code AiServices}), a memory that holds nothing (what {@code AiServices}' own map of memories
 * costs), and runs that evict each memory from {@code AiServices} after its session
 * ({@link ChatMemoryAccess#evictChatMemory}), so what LangChain4j keeps and what ours keep are told
 * apart. A plain program, not JMH: each variant runs in a child JVM of its own, one after the other, with
 * {@code -XX:+UseSerialGC -XX:MarkSweepDeadRatio=0}, so that "used after a full GC" is exactly the
 * live objects (by default the serial collector leaves up to 5% of the old generation as dead space,
 * filled with dummy {@code int[]}s, which reads as megabytes of phantom growth).
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests -Pheap package                      # every variant, 100,000 sessions
 * mvn -B -q -pl benchmarks -am -DskipTests -Pheap package -Dheap.sessions=20000 -Dheap.variants=lc4j-window,buffer-file
 * </pre>
 *
 * <p>The file store's folder is on {@code /dev/shm} when it exists ({@code -Dheap.dir} to choose):
 * this measures heap, not I/O, and the store forces every append to disk, which takes about 30 ms a
 * call on the shared machine's disk (100,000 sessions would take hours). Redis is started by the
 * benchmark from the Maven-packaged binary ({@link BenchmarkRedis}), one server per variant.
 */
public final class HeapBenchmark {

    /** Sessions per variant unless {@code -Dheap.sessions} says otherwise. */
    public static final int DEFAULT_SESSIONS = 100_000;
    /** Turns (user message and answer) per session. */
    public static final int TURNS = 3;
    /** Sessions served interleaved: turn 1 of each, then turn 2 of each, ... */
    public static final int ACTIVE = 100;
    /** Sessions run before the first measurement (class loading, lazy statics), not counted per session. */
    public static final int WARM_UP = ACTIVE;
    /** The summary-buffer variant's budget: the third turn passes it, so every session folds once. */
    public static final int SUMMARY_BUFFER_TOKENS = 150;
    /** Where heap is measured. */
    public static final int[] CHECKPOINTS = {1_000, 10_000, 50_000, 100_000};
    /** Every variant, in the order they run. */
    public static final List<String> VARIANTS = List.of("lc4j-window", "id-only", "objects-lc4j", "objects-buffer",
            "buffer-file", "buffer-file:0", "buffer-file:100", "buffer-file:10000", "buffer-file-evict",
            "buffer-redis", "buffer-redis-evict", "summary-buffer-file");

    private HeapBenchmark() {
    }

    /** The assistant every variant talks to. */
    interface Assistant extends ChatMemoryAccess {
        @SystemMessage("You are the heap benchmark's assistant. Answer briefly.")
        String chat(@MemoryId String sessionId, @dev.langchain4j.service.UserMessage String text);
    }

    /** {@code variant NAME SESSIONS} runs one variant here; no argument forks every variant and prints the table. */
    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("variant")) {
            runVariant(args[1], Integer.parseInt(args[2]));
            return;
        }
        int sessions = Integer.getInteger("heap.sessions", DEFAULT_SESSIONS);
        String chosen = System.getProperty("heap.variants", "");
        List<String> variants = chosen.isBlank() ? VARIANTS : List.of(chosen.split(","));
        Map<String, Map<Integer, Measure>> results = new LinkedHashMap<>();
        Map<String, Double> seconds = new LinkedHashMap<>();
        for (String variant : variants) {
            long start = System.nanoTime();
            results.put(variant, fork(variant, sessions));
            seconds.put(variant, (System.nanoTime() - start) / 1e9);
        }
        System.out.println(Report.table(results, seconds, sessions));
    }

    // ------------------------------------------------------------------ parent

    private static Map<Integer, Measure> fork(String variant, int sessions) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-XX:+UseSerialGC", "-XX:MarkSweepDeadRatio=0", "-Xmx" + System.getProperty("heap.xmx", "4g"),
                "-Dheap.dir=" + folder(), "-cp", System.getProperty("java.class.path"),
                HeapBenchmark.class.getName(), "variant", variant, Integer.toString(sessions));
        System.err.println("[heap] " + variant + ": " + sessions + " sessions");
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Map<Integer, Measure> measures = new LinkedHashMap<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(Measure.PREFIX)) {
                    Measure measure = Measure.parse(line);
                    measures.put(measure.sessions, measure);
                }
                System.err.println("[heap] " + variant + " " + line);
            }
        }
        if (process.waitFor() != 0) {
            throw new IllegalStateException(variant + " failed with exit code " + process.exitValue());
        }
        return measures;
    }

    private static String folder() {
        String dir = System.getProperty("heap.dir");
        if (dir != null && !dir.isBlank()) {
            return dir;
        }
        return Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : System.getProperty("java.io.tmpdir");
    }

    // ------------------------------------------------------------------ child

    private static void runVariant(String variant, int sessions) throws Exception {
        String[] parts = variant.split(":", 2);
        Integer cacheSize = parts.length > 1 ? Integer.valueOf(parts[1]) : null;
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("heap.dir")), "heap-bench");
        BenchmarkRedis redis = null;
        JedisPooled jedis = null;
        try {
            SessionStore store = null;
            switch (parts[0]) {
                case "buffer-file":
                case "buffer-file-evict":
                case "objects-buffer":
                case "summary-buffer-file":
                    store = FileSessionStore.of(dir);
                    break;
                case "buffer-redis":
                case "buffer-redis-evict":
                    redis = BenchmarkRedis.start();
                    jedis = new JedisPooled(java.net.URI.create(redis.uri()));
                    store = RedisSessionStore.builder().client(jedis).keyPrefix("heap:" + System.nanoTime() + ":")
                            .build();
                    break;
                default:
                    break;
            }
            ChatMemoryProvider provider = provider(parts[0], store, cacheSize);
            Run run = parts[0].startsWith("objects-") ? new ObjectsOnly(provider)
                    : new ThroughAiServices(provider, parts[0].endsWith("-evict"));
            run.sessions(0, WARM_UP);
            measure(0, store, provider); // the baseline: after the warm-up sessions
            int done = WARM_UP;
            Map<String, long[]> first = null;
            int firstAt = 0;
            for (int checkpoint : checkpoints(sessions)) {
                run.sessions(done, checkpoint);
                done = checkpoint;
                measure(done, store, provider);
                if (first == null) {
                    first = histogram();
                    firstAt = done;
                } else if (done == sessions) {
                    writeHistogram(variant, firstAt, done, first, histogram());
                }
            }
            run.close();
        } finally {
            if (jedis != null) {
                jedis.close();
            }
            if (redis != null) {
                redis.close();
            }
            deleteTree(dir);
        }
    }

    private static ChatMemoryProvider provider(String kind, SessionStore store, Integer cacheSize) {
        switch (kind) {
            case "lc4j-window":
            case "objects-lc4j":
                return id -> MessageWindowChatMemory.builder().id(id).maxMessages(20).build();
            case "id-only":
                return IdOnlyMemory::new;
            case "summary-buffer-file":
                // a budget the third turn passes, so every session folds once (inline, extractive: offline)
                return SummaryBufferChatMemory.builder().chatMemoryStore(store)
                        .summarizer(Summarizer.extractive()).maxBufferTokens(SUMMARY_BUFFER_TOKENS)
                        .provider();
            default:
                BufferChatMemory.Builder builder = BufferChatMemory.builder().chatMemoryStore(store);
                if (cacheSize != null) {
                    builder.viewCacheSize(cacheSize);
                }
                return builder.provider();
        }
    }

    static List<Integer> checkpoints(int sessions) {
        List<Integer> points = new ArrayList<>();
        for (int checkpoint : CHECKPOINTS) {
            if (checkpoint < sessions) {
                points.add(checkpoint);
            }
        }
        points.add(sessions);
        return points;
    }

    static String sessionId(int n) {
        return String.format(Locale.ROOT, "session-%06d", n);
    }

    /** A way to put sessions through memories. */
    private interface Run {
        /** Sessions {@code from} (inclusive) to {@code to} (exclusive). */
        void sessions(int from, int to);

        default void close() {
        }
    }

    /** One real {@code AiServices}: every session gets {@link #TURNS} turns, {@link #ACTIVE} sessions at a time. */
    private static final class ThroughAiServices implements Run {
        private final Assistant assistant;
        private final boolean evict;

        ThroughAiServices(ChatMemoryProvider provider, boolean evict) {
            this.assistant = AiServices.builder(Assistant.class).chatModel(new OfflineModel())
                    .chatMemoryProvider(provider).build();
            this.evict = evict;
        }

        @Override
        public void sessions(int from, int to) {
            for (int block = from; block < to; block += ACTIVE) {
                int end = Math.min(to, block + ACTIVE);
                for (int turn = 0; turn < TURNS; turn++) {
                    for (int n = block; n < end; n++) {
                        String answer = assistant.chat(sessionId(n), OfflineModel.question(n, turn));
                        if (answer.isEmpty()) {
                            throw new IllegalStateException("no answer");
                        }
                    }
                }
                if (evict) {
                    for (int n = block; n < end; n++) {
                        assistant.evictChatMemory(sessionId(n));
                    }
                }
            }
        }
    }

    /** Just the memory objects, as {@code AiServices} would hold them, without a message through them. */
    private static final class ObjectsOnly implements Run {
        private final ChatMemoryProvider provider;
        private final List<ChatMemory> memories = new ArrayList<>();

        ObjectsOnly(ChatMemoryProvider provider) {
            this.provider = provider;
        }

        @Override
        public void sessions(int from, int to) {
            for (int n = from; n < to; n++) {
                memories.add(provider.get(sessionId(n)));
            }
        }
    }

    /** A chat memory that keeps nothing but its id: what {@code AiServices}' map of memories costs by itself. */
    private static final class IdOnlyMemory implements ChatMemory {
        private final Object id;

        IdOnlyMemory(Object id) {
            this.id = id;
        }

        @Override
        public Object id() {
            return id;
        }

        @Override
        public void add(ChatMessage message) {
        }

        @Override
        public List<ChatMessage> messages() {
            return new ArrayList<>();
        }

        @Override
        public void clear() {
        }
    }

    /** Answers every question the same way, from the question and how many messages it was sent; no network. */
    static final class OfflineModel implements ChatModel {

        static String question(int session, int turn) {
            return String.format(Locale.ROOT, "Session %d, question %d: what did we decide about the delivery"
                    + " schedule for order %d, and who confirmed it?", session, turn + 1, session * 7 + turn);
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            String asked = last instanceof UserMessage ? ((UserMessage) last).singleText() : "";
            return ChatResponse.builder().aiMessage(AiMessage.from("You asked: \"" + asked + "\". The schedule"
                    + " stays as agreed: delivery on Thursday, confirmed by the warehouse. I was sent "
                    + messages.size() + " messages.")).build();
        }
    }

    // ------------------------------------------------------------------ measuring

    /** Heap used after full GCs, repeated until it stops falling. */
    static long usedAfterGc() {
        long previous = Long.MAX_VALUE;
        for (int i = 0; i < 6; i++) {
            System.gc();
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (used >= previous - 4096) {
                return Math.min(used, previous);
            }
            previous = used;
        }
        return previous;
    }

    private static void measure(int sessions, SessionStore store, ChatMemoryProvider provider) {
        long used = usedAfterGc();
        System.out.println(new Measure(sessions, used, openFiles(), Probe.fileStoreSessions(store),
                Probe.views(provider)).line());
        System.out.flush();
    }

    private static long openFiles() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The live-object class histogram: class name to {instances, bytes}. */
    static Map<String, long[]> histogram() {
        try {
            String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            Map<String, long[]> classes = new LinkedHashMap<>();
            for (String line : text.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 4 && f[0].endsWith(":")) {
                    classes.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
                }
            }
            return classes;
        } catch (Exception e) {
            System.err.println("no class histogram: " + e);
            return Map.of();
        }
    }

    /**
     * Writes {@code target/heap/<variant>.txt}: the classes whose live bytes grew most from the first
     * checkpoint after the warm-up to the end (what each further session leaves in heap), then the
     * top of the final histogram.
     */
    private static void writeHistogram(String variant, int from, int to, Map<String, long[]> before,
                                       Map<String, long[]> after) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "Growth from %,d to %,d sessions (instances, bytes, bytes per session):",
                from, to));
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), new long[] {e.getValue()[0] - before.getOrDefault(e.getKey(), new long[2])[0],
                        e.getValue()[1] - before.getOrDefault(e.getKey(), new long[2])[1]}))
                .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1])).limit(30)
                .forEach(e -> lines.add(String.format(Locale.ROOT, "%,12d %,14d %10.1f  %s", e.getValue()[0],
                        e.getValue()[1], e.getValue()[1] / (double) (to - from), e.getKey())));
        lines.add("");
        lines.add(String.format(Locale.ROOT, "Live objects at %,d sessions (instances, bytes):", to));
        after.entrySet().stream().limit(40).forEach(e -> lines.add(String.format(Locale.ROOT, "%,12d %,14d  %s",
                e.getValue()[0], e.getValue()[1], e.getKey())));
        Path out = Path.of("target", "heap", variant.replace(':', '-') + ".txt");
        Files.createDirectories(out.getParent());
        Files.write(out, lines, StandardCharsets.UTF_8);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
