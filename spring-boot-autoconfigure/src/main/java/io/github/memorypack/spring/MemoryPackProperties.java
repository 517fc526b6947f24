package io.github.memorypack.spring;

import io.github.memorypack.core.Experimental;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code memory-pack.*} properties: which memory strategy the auto-configured
 * {@code ChatMemoryProvider} builds, its limits and summarizer, and which {@code SessionStore} it
 * runs on. Every property has a default, so the starter works with none set (a 20-message window on
 * an in-memory store). Spring validates the bound values ({@link #validate}): a value out of range,
 * or options that contradict each other, fail the application's start with a message that names the
 * property.
 *
 * <p>{@link Experimental}: property names, defaults and their grouping may still change.
 *
 * <p>A mutable JavaBean that Spring binds once, at start-up; it is not thread-safe, and nothing reads
 * it after the beans are created.
 */
@Experimental
// ignoreUnknownFields = false: a misspelt memory-pack.* name fails the start (MemoryPackFailureAnalyzer says
// which property was meant) instead of doing nothing
@ConfigurationProperties(prefix = "memory-pack", ignoreUnknownFields = false)
public class MemoryPackProperties implements Validator {

    /** The memory strategies the starter can build. */
    public enum Strategy {
        /** Every message ({@code BufferChatMemory}). */
        BUFFER,
        /** The last messages, turns or tokens ({@code WindowChatMemory}). */
        WINDOW,
        /** A running summary plus the turns not yet folded ({@code SummaryChatMemory}). */
        SUMMARY,
        /** Recent turns verbatim up to a token budget, older ones summarized ({@code SummaryBufferChatMemory}). */
        SUMMARY_BUFFER
    }

    /** The session stores the starter can create. */
    public enum StoreType {
        /** {@code InMemorySessionStore}: nothing survives a restart. */
        IN_MEMORY,
        /** {@code FileSessionStore} in {@code memory-pack.store.file.directory}. */
        FILE,
        /** {@code RedisSessionStore} (needs {@code memory-pack-redis}) on Spring's Redis connection settings. */
        REDIS,
        /** {@code JdbcSessionStore} (needs {@code memory-pack-jdbc}) on the application's {@code DataSource}. */
        JDBC
    }

    /** The memory strategy of the auto-configured ChatMemoryProvider. */
    private Strategy strategy = Strategy.WINDOW;

    /**
     * Ceiling on each request, in tokens. Summary and summary-buffer: a hard ceiling, the oldest
     * closed turns are cut from the view while folds lag (the overflow is reported). Buffer: views
     * over it are only reported, never cut. Not for the window, whose limit is window.max-tokens.
     * Unset: none.
     */
    private Integer contextTokens;

    /**
     * Model name whose token encoding counts tokens (for example gpt-4o-mini or gpt-3.5-turbo).
     * Unset: o200k_base, the encoding of the gpt-4o, gpt-4.1 and o-series models.
     */
    private String tokenizerModel;

    /** Views (one per session) each memory keeps in memory to extend the next one cheaply; 0 keeps none. Unset: the shared default cache. */
    private Integer viewCacheSize;

    private final ConcurrentSends concurrentSends = new ConcurrentSends();
    private final Window window = new Window();
    private final Summary summary = new Summary();
    private final SummaryBuffer summaryBuffer = new SummaryBuffer();
    private final Summarizer summarizer = new Summarizer();
    private final Store store = new Store();
    private final Metrics metrics = new Metrics();

    /** Created by Spring, with every default. */
    public MemoryPackProperties() {
    }

    /**
     * Whether {@code type} is validated here.
     *
     * @param type the class Spring is about to validate
     * @return whether it is this class
     */
    @Override
    public boolean supports(Class<?> type) {
        return MemoryPackProperties.class.isAssignableFrom(type);
    }

    /**
     * Rejects, naming the {@code memory-pack.*} property, what the memory builders and stores would
     * reject later: counts and durations out of range, more than one window limit,
     * {@code context-tokens} with the window (whose limit is {@code window.max-tokens}), a low
     * watermark not below the verbatim budget, an unknown tokenizer model, and a file store without
     * a directory. Spring calls it after binding, so the application does not start.
     *
     * @param target the bound properties (this object)
     * @param errors where each rejected property is recorded
     */
    @Override
    public void validate(Object target, Errors errors) {
        PropertiesCheck.validate((MemoryPackProperties) target, errors);
    }

    /** @return the strategy; default {@link Strategy#WINDOW} */
    public Strategy getStrategy() {
        return strategy;
    }

    /** @param strategy the strategy of the auto-configured provider */
    public void setStrategy(Strategy strategy) {
        this.strategy = strategy;
    }

    /** @return the request ceiling in tokens, or {@code null} for none */
    public Integer getContextTokens() {
        return contextTokens;
    }

    /** @param contextTokens the request ceiling in tokens; {@code null} for none */
    public void setContextTokens(Integer contextTokens) {
        this.contextTokens = contextTokens;
    }

    /** @return the model whose encoding counts tokens, or {@code null} for o200k_base */
    public String getTokenizerModel() {
        return tokenizerModel;
    }

    /** @param tokenizerModel the model whose encoding counts tokens */
    public void setTokenizerModel(String tokenizerModel) {
        this.tokenizerModel = tokenizerModel;
    }

    /** @return the view cache size, or {@code null} for the shared default cache */
    public Integer getViewCacheSize() {
        return viewCacheSize;
    }

    /** @param viewCacheSize views each memory keeps cached; 0 for none */
    public void setViewCacheSize(Integer viewCacheSize) {
        this.viewCacheSize = viewCacheSize;
    }

    /** @return the settings for two requests on one session at once */
    public ConcurrentSends getConcurrentSends() {
        return concurrentSends;
    }

    /** @return the window settings */
    public Window getWindow() {
        return window;
    }

    /** @return the summary settings */
    public Summary getSummary() {
        return summary;
    }

    /** @return the summary-buffer settings */
    public SummaryBuffer getSummaryBuffer() {
        return summaryBuffer;
    }

    /** @return the summarizer settings */
    public Summarizer getSummarizer() {
        return summarizer;
    }

    /** @return the store settings */
    public Store getStore() {
        return store;
    }

    /** @return the metrics settings */
    public Metrics getMetrics() {
        return metrics;
    }

    /** What a request does while another request's turn still runs on its session. */
    public enum ConcurrentSendsMode {
        /** Wait (up to {@code max-wait}) for the running turn to close, then continue from it (the default). */
        QUEUE,
        /** Fail at once with {@code SessionBusyException}, before any model call. */
        REFUSE,
        /** Run beside the running turn, from the last closed one. */
        BRANCH
    }

    /** {@code memory-pack.concurrent-sends.*}: two requests on one session at once (see {@code ConcurrentSends}). */
    public static class ConcurrentSends {

        /** queue, refuse or branch. Default: queue. */
        private ConcurrentSendsMode mode = ConcurrentSendsMode.QUEUE;
        /** How long a queued request waits for the running turn to close. Default: 30s. */
        private Duration maxWait = io.github.memorypack.core.ConcurrentSends.DEFAULT_MAX_WAIT;

        /** @return the mode; default {@link ConcurrentSendsMode#QUEUE} */
        public ConcurrentSendsMode getMode() {
            return mode;
        }

        /** @param mode the mode */
        public void setMode(ConcurrentSendsMode mode) {
            this.mode = mode;
        }

        /** @return how long a queued request waits; default 30 seconds */
        public Duration getMaxWait() {
            return maxWait;
        }

        /** @param maxWait how long a queued request waits */
        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        /** The setting these properties name, for the memories' options. */
        io.github.memorypack.core.ConcurrentSends setting() {
            return switch (mode) {
                case QUEUE -> io.github.memorypack.core.ConcurrentSends.queue(maxWait);
                case REFUSE -> io.github.memorypack.core.ConcurrentSends.refuse();
                case BRANCH -> io.github.memorypack.core.ConcurrentSends.branch();
            };
        }
    }

    /** {@code memory-pack.window.*}: set one limit; with none set the window keeps 20 messages. */
    public static class Window {

        /** Messages the window keeps (the pinned system message included). With no window limit set: 20. */
        private Integer maxMessages;
        /** Turns (a user message and what belongs to it) the window keeps. */
        private Integer maxTurns;
        /** Tokens of the whole request the window keeps. */
        private Integer maxTokens;

        /** @return the message limit, or {@code null} */
        public Integer getMaxMessages() {
            return maxMessages;
        }

        /** @param maxMessages the message limit */
        public void setMaxMessages(Integer maxMessages) {
            this.maxMessages = maxMessages;
        }

        /** @return the turn limit, or {@code null} */
        public Integer getMaxTurns() {
            return maxTurns;
        }

        /** @param maxTurns the turn limit */
        public void setMaxTurns(Integer maxTurns) {
            this.maxTurns = maxTurns;
        }

        /** @return the token limit, or {@code null} */
        public Integer getMaxTokens() {
            return maxTokens;
        }

        /** @param maxTokens the token limit */
        public void setMaxTokens(Integer maxTokens) {
            this.maxTokens = maxTokens;
        }
    }

    /** {@code memory-pack.summary.*}. */
    public static class Summary {

        /** Fold the summary every this many completed turns. Unset: after every turn. */
        private Integer foldEveryTurns;

        /** @return turns between folds, or {@code null} for every turn */
        public Integer getFoldEveryTurns() {
            return foldEveryTurns;
        }

        /** @param foldEveryTurns turns between folds */
        public void setFoldEveryTurns(Integer foldEveryTurns) {
            this.foldEveryTurns = foldEveryTurns;
        }
    }

    /** {@code memory-pack.summary-buffer.*}. */
    public static class SummaryBuffer {

        /** Budget of the verbatim turns, in tokens; passing it folds the oldest turns into the summary. */
        private int maxBufferTokens = 2_000;
        /** A fold goes on until the verbatim turns are at or under this. Unset: half of max-buffer-tokens. */
        private Integer lowWatermark;

        /** @return the verbatim budget in tokens; default 2,000 */
        public int getMaxBufferTokens() {
            return maxBufferTokens;
        }

        /** @param maxBufferTokens the verbatim budget in tokens */
        public void setMaxBufferTokens(int maxBufferTokens) {
            this.maxBufferTokens = maxBufferTokens;
        }

        /** @return the low watermark, or {@code null} for half the budget */
        public Integer getLowWatermark() {
            return lowWatermark;
        }

        /** @param lowWatermark the low watermark in tokens */
        public void setLowWatermark(Integer lowWatermark) {
            this.lowWatermark = lowWatermark;
        }
    }

    /** {@code memory-pack.summarizer.*}: who writes the summaries of summary and summary-buffer. */
    public static class Summarizer {

        /**
         * Bean name of the ChatModel that writes summaries (usually a cheaper model than the chat
         * model). Unset: the application's only (or primary) ChatModel bean.
         */
        private String model;
        /** Summarize offline with the extractive summarizer (no model, no cost) instead of a ChatModel. */
        private boolean extractive;
        /** Longest summary accepted, in tokens. Unset: the summarizer's own cap (1,000 for the LLM summarizer, 500 extractive). */
        private Integer maxSummaryTokens;
        /** How long one summarizer call may take before the fold fails (nothing changes). */
        private Duration timeout = Duration.ofSeconds(60);

        /** @return the ChatModel bean name, or {@code null} for the application's only one */
        public String getModel() {
            return model;
        }

        /** @param model the ChatModel bean name */
        public void setModel(String model) {
            this.model = model;
        }

        /** @return whether the offline extractive summarizer is used */
        public boolean isExtractive() {
            return extractive;
        }

        /** @param extractive whether to use the offline extractive summarizer */
        public void setExtractive(boolean extractive) {
            this.extractive = extractive;
        }

        /** @return the summary cap in tokens, or {@code null} for the summarizer's own */
        public Integer getMaxSummaryTokens() {
            return maxSummaryTokens;
        }

        /** @param maxSummaryTokens the summary cap in tokens */
        public void setMaxSummaryTokens(Integer maxSummaryTokens) {
            this.maxSummaryTokens = maxSummaryTokens;
        }

        /** @return the timeout of one summarizer call; default 60 seconds */
        public Duration getTimeout() {
            return timeout;
        }

        /** @param timeout the timeout of one summarizer call */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** {@code memory-pack.store.*}: the auto-configured SessionStore (unless the application defines one). */
    public static class Store {

        /** Where sessions are kept. */
        private StoreType type = StoreType.IN_MEMORY;
        private final File file = new File();
        private final Redis redis = new Redis();
        private final Jdbc jdbc = new Jdbc();

        /** @return the store type; default {@link StoreType#IN_MEMORY} */
        public StoreType getType() {
            return type;
        }

        /** @param type the store type */
        public void setType(StoreType type) {
            this.type = type;
        }

        /** @return the file store settings */
        public File getFile() {
            return file;
        }

        /** @return the Redis store settings */
        public Redis getRedis() {
            return redis;
        }

        /** @return the JDBC store settings */
        public Jdbc getJdbc() {
            return jdbc;
        }
    }

    /** {@code memory-pack.store.file.*}. */
    public static class File {

        /** Folder of the file store (created if missing). Required for store type file. */
        private Path directory;

        /** @return the folder, or {@code null} when unset */
        public Path getDirectory() {
            return directory;
        }

        /** @param directory the folder of the file store */
        public void setDirectory(Path directory) {
            this.directory = directory;
        }
    }

    /**
     * {@code memory-pack.store.redis.*}. The connection comes from Spring Boot's
     * {@code RedisConnectionDetails} bean when there is one, otherwise from {@code spring.data.redis.*}.
     */
    public static class Redis {

        /** Text put before every key. */
        private String keyPrefix = "memory-pack:";
        /** Expire a session this long after its last write. Unset: never. */
        private Duration ttl;
        /**
         * How long a call keeps retrying while Redis does not answer (or a cluster reshards or fails
         * over) before it fails. Unset: the store's default, 10 seconds. Also how long the health
         * indicator takes to report a stopped server as down.
         */
        private Duration retryDuration;

        /** @return the key prefix; default {@code memory-pack:} */
        public String getKeyPrefix() {
            return keyPrefix;
        }

        /** @param keyPrefix the key prefix */
        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        /** @return the time to live after the last write, or {@code null} */
        public Duration getTtl() {
            return ttl;
        }

        /** @param ttl the time to live after the last write */
        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        /** @return the retry budget of one call, or {@code null} for the store's default */
        public Duration getRetryDuration() {
            return retryDuration;
        }

        /** @param retryDuration the retry budget of one call */
        public void setRetryDuration(Duration retryDuration) {
            this.retryDuration = retryDuration;
        }
    }

    /** {@code memory-pack.store.jdbc.*}: the store runs on the application's DataSource. */
    public static class Jdbc {

        /** Create the tables at start-up if they do not exist (safe on every start; turn off when migrations own the schema). */
        private boolean createSchema = true;
        /** Text put before the table names. Unset: memory_pack_. */
        private String tablePrefix;
        /** Schema of the tables. Unset: the connection's default schema. */
        private String schema;

        /** @return whether the tables are created at start-up; default {@code true} */
        public boolean isCreateSchema() {
            return createSchema;
        }

        /** @param createSchema whether to create the tables at start-up */
        public void setCreateSchema(boolean createSchema) {
            this.createSchema = createSchema;
        }

        /** @return the table prefix, or {@code null} for the store's default */
        public String getTablePrefix() {
            return tablePrefix;
        }

        /** @param tablePrefix the table prefix */
        public void setTablePrefix(String tablePrefix) {
            this.tablePrefix = tablePrefix;
        }

        /** @return the schema, or {@code null} for the connection's default */
        public String getSchema() {
            return schema;
        }

        /** @param schema the schema of the tables */
        public void setSchema(String schema) {
            this.schema = schema;
        }
    }

    /** {@code memory-pack.metrics.*}. */
    public static class Metrics {

        /** Publish memorypack.* meters when the application has a MeterRegistry (and memory-pack-micrometer is present). */
        private boolean enabled = true;

        /** @return whether meters are published; default {@code true} */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether to publish meters */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
