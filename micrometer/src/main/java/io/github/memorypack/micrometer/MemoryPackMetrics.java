package io.github.memorypack.micrometer;

import io.github.memorypack.core.Experimental;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Publishes what Memory Pack memories and stores do as Micrometer meters. It is a
 * {@link MemoryListener}: attach it to any memory builder with {@code builder.listener(metrics)}; and
 * it times stores: {@link #instrument(SessionStore)} returns a store that records every operation.
 *
 * <pre>{@code
 * MemoryPackMetrics metrics = MemoryPackMetrics.of(registry);
 * SessionStore store = metrics.instrument(FileSessionStore.of(folder));
 * ChatMemoryProvider memories = SummaryBufferChatMemory.builder().chatMemoryStore(store)
 *         .summarizer(Summarizer.llm(cheapModel)).maxBufferTokens(2_000).listener(metrics).provider();
 * }</pre>
 *
 * <p>Meters (every name starts with {@code memorypack.}; sizes are in their base unit, times are
 * timers; the module README describes each):
 * <ul>
 *   <li>{@value #VIEW_TOKENS} (distribution summary, tokens; tag {@code strategy}) and
 *       {@value #VIEW_MESSAGES} (distribution summary, messages; tag {@code strategy}): one sample per
 *       computed view, that is per {@code messages()} call. Views of memories that count no tokens
 *       record no token sample.</li>
 *   <li>{@value #SUMMARIZER_CALLS} (counter; tag {@code outcome}: {@code success} or {@code failure}):
 *       summarizer calls, counted when they end. A failed fold that never reached the summarizer (the
 *       store or the executor failed first) is not a call.</li>
 *   <li>{@value #SUMMARIZER_TOKENS} (distribution summary, tokens; tags {@code strategy},
 *       {@code direction}: {@code input} or {@code output}): estimated tokens sent to and returned by
 *       each successful summarizer call.</li>
 *   <li>{@value #FOLDS} (timer; tag {@code strategy}): how long each successful fold's summarizer call
 *       took.</li>
 *   <li>{@value #FOLD_FAILURES} (counter; tag {@code reason}: {@code empty}, {@code too_long},
 *       {@code failed}, {@code timed_out}): folds that changed nothing.</li>
 *   <li>{@value #FOLDS_SKIPPED} (counter; tag {@code strategy}): folds skipped while a memory backs off
 *       after failures.</li>
 *   <li>{@value #OVERFLOWS} (counter; tag {@code unit}: {@code messages}, {@code turns}, {@code tokens}):
 *       views over their limit because what can never be cut is over it.</li>
 *   <li>{@value #STORE_OPERATIONS} (timer; tags {@code backend}, {@code operation}, {@code outcome}:
 *       {@code success} or {@code error}) and {@value #STORE_ERRORS} (counter; tags {@code backend},
 *       {@code operation}, {@code exception}): every call of an {@linkplain #instrument instrumented}
 *       store.</li>
 * </ul>
 * Meters are registered on first use. Session ids never become tags (they are unbounded). Thread-safe;
 * one instance serves any number of memories and stores.
 *
 * <p>{@link Experimental}: meter names, tags and units may still change (for example to follow
 * OpenTelemetry's semantic conventions for generative AI).
 */
@Experimental
public final class MemoryPackMetrics implements MemoryListener {

    /** Tokens of each computed view. */
    public static final String VIEW_TOKENS = "memorypack.view.tokens";
    /** Messages of each computed view. */
    public static final String VIEW_MESSAGES = "memorypack.view.messages";
    /** Summarizer calls, by outcome. */
    public static final String SUMMARIZER_CALLS = "memorypack.summarizer.calls";
    /** Estimated tokens in and out of each successful summarizer call. */
    public static final String SUMMARIZER_TOKENS = "memorypack.summarizer.tokens";
    /** Duration of each successful fold's summarizer call. */
    public static final String FOLDS = "memorypack.folds";
    /** Folds that changed nothing, by reason. */
    public static final String FOLD_FAILURES = "memorypack.fold.failures";
    /** Folds skipped while backing off after failures. */
    public static final String FOLDS_SKIPPED = "memorypack.folds.skipped";
    /** Views over their limit. */
    public static final String OVERFLOWS = "memorypack.view.overflows";
    /** Duration of each store operation. */
    public static final String STORE_OPERATIONS = "memorypack.store.operations";
    /** Store operations that threw. */
    public static final String STORE_ERRORS = "memorypack.store.errors";

    private final MeterRegistry registry;
    private final Map<String, DistributionSummary> viewTokens = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> viewMessages = new ConcurrentHashMap<>();
    private final Map<String, Timer> folds = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> summarizerIn = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> summarizerOut = new ConcurrentHashMap<>();
    private final Map<String, Counter> skipped = new ConcurrentHashMap<>();
    private final Map<String, Counter> failures = new ConcurrentHashMap<>();
    private final Map<String, Counter> overflows = new ConcurrentHashMap<>();
    private final Counter callsSucceeded;
    private final Counter callsFailed;

    private MemoryPackMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.callsSucceeded = calls("success");
        this.callsFailed = calls("failure");
    }

    /**
     * Metrics published to {@code registry}.
     *
     * @param registry where the meters go (add common tags, percentiles or histograms with the
     *                 registry's {@code MeterFilter}s)
     * @return a listener and store instrumenter on that registry
     * @throws IllegalArgumentException if {@code registry} is null
     */
    public static MemoryPackMetrics of(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
        return new MemoryPackMetrics(registry);
    }

    /**
     * A store that times every call to {@code store} as {@value #STORE_OPERATIONS} and counts the
     * calls that throw as {@value #STORE_ERRORS}, tagged with the store's backend name: its class's
     * simple name without {@code SessionStore}, in kebab case ({@code file}, {@code in-memory},
     * {@code redis}, {@code jdbc}, {@code memory-md}). It behaves exactly like {@code store} otherwise
     * (what it returns and throws); closing it closes {@code store} when that is {@link AutoCloseable}.
     * A store this registry already times is returned as it is, so each call is timed once.
     *
     * @param store the store to time
     * @return the timed store
     * @throws IllegalArgumentException if {@code store} is null
     */
    public SessionStore instrument(SessionStore store) {
        if (store == null) {
            throw new IllegalArgumentException("store must not be null");
        }
        return instrument(store, backendOf(store));
    }

    /**
     * {@link #instrument(SessionStore)} with the {@code backend} tag given. A store this registry
     * already times is returned as it is (keeping its tag).
     *
     * @param store   the store to time
     * @param backend the value of the {@code backend} tag
     * @return the timed store
     * @throws IllegalArgumentException if {@code store} is null or {@code backend} is null or blank
     */
    public SessionStore instrument(SessionStore store, String backend) {
        if (store == null) {
            throw new IllegalArgumentException("store must not be null");
        }
        if (backend == null || backend.isBlank()) {
            throw new IllegalArgumentException("backend must not be blank");
        }
        if (store instanceof TimedSessionStore timed && timed.timesOn(registry)) {
            return timed;
        }
        return new TimedSessionStore(store, backend, registry);
    }

    /** Records the view's size: {@value #VIEW_MESSAGES}, and {@value #VIEW_TOKENS} when it was counted. */
    @Override
    public void onView(ViewShown view) {
        viewMessages.computeIfAbsent(view.strategy(), s -> summary(VIEW_MESSAGES, "messages",
                "Messages of each computed chat memory view", "strategy", s)).record(view.messages());
        if (view.tokens() >= 0) {
            viewTokens.computeIfAbsent(view.strategy(), s -> summary(VIEW_TOKENS, "tokens",
                    "Tokens of each computed chat memory view", "strategy", s)).record(view.tokens());
        }
    }

    /** Counts {@value #OVERFLOWS} by unit. */
    @Override
    public void onOverflow(Overflow overflow) {
        counter(overflows, OVERFLOWS, "Views over their limit", "unit", lower(overflow.unit().name())).increment();
    }

    /** Records a successful summarizer call: {@value #FOLDS}, {@value #SUMMARIZER_CALLS}, {@value #SUMMARIZER_TOKENS}. */
    @Override
    public void onFold(Fold fold) {
        callsSucceeded.increment();
        folds.computeIfAbsent(fold.strategy(), s -> Timer.builder(FOLDS)
                .description("Duration of each successful fold's summarizer call").tag("strategy", s)
                .register(registry)).record(fold.duration());
        summarizerIn.computeIfAbsent(fold.strategy(), s -> summary(SUMMARIZER_TOKENS, "tokens",
                "Estimated tokens sent to and returned by the summarizer", "strategy", s, "direction", "input"))
                .record(fold.inputTokens());
        summarizerOut.computeIfAbsent(fold.strategy(), s -> summary(SUMMARIZER_TOKENS, "tokens",
                "Estimated tokens sent to and returned by the summarizer", "strategy", s, "direction", "output"))
                .record(fold.outputTokens());
    }

    /** Counts {@value #FOLD_FAILURES} by reason, and a failed {@value #SUMMARIZER_CALLS} when the summarizer was called. */
    @Override
    public void onSummaryFailure(SummaryFailure failure) {
        if (failure.fromIndex() >= 0) {
            callsFailed.increment();
        }
        counter(failures, FOLD_FAILURES, "Folds that changed nothing", "reason", lower(failure.reason().name()))
                .increment();
    }

    /** Counts {@value #FOLDS_SKIPPED}. */
    @Override
    public void onFoldSkipped(String sessionId, String strategy) {
        counter(skipped, FOLDS_SKIPPED, "Folds skipped while backing off after failures", "strategy", strategy)
                .increment();
    }

    @Override
    public String toString() {
        return "MemoryPackMetrics{" + registry.getClass().getSimpleName() + '}';
    }

    /** {@code InMemorySessionStore} → {@code in-memory}, {@code MemoryMdSessionStore} → {@code memory-md}. */
    static String backendOf(SessionStore store) {
        if (store instanceof TimedSessionStore timed) {
            return timed.backend();
        }
        String name = store.getClass().getSimpleName();
        if (name.isEmpty()) {
            name = store.getClass().getName().substring(store.getClass().getName().lastIndexOf('.') + 1);
        }
        if (name.endsWith("SessionStore") && name.length() > "SessionStore".length()) {
            name = name.substring(0, name.length() - "SessionStore".length());
        }
        return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").replace('$', '-').toLowerCase(Locale.ROOT);
    }

    private Counter calls(String outcome) {
        return Counter.builder(SUMMARIZER_CALLS).description("Summarizer calls, counted when they end")
                .tag("outcome", outcome).register(registry);
    }

    private DistributionSummary summary(String name, String unit, String description, String... tags) {
        return DistributionSummary.builder(name).baseUnit(unit).description(description).tags(tags)
                .register(registry);
    }

    private Counter counter(Map<String, Counter> cache, String name, String description, String tag, String value) {
        Objects.requireNonNull(value, tag);
        return cache.computeIfAbsent(value, v -> Counter.builder(name).description(description).tag(tag, v)
                .register(registry));
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
