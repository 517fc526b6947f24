package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * One memory's place in its session: the memory id and the session id it maps to, the settings and
 * engine parts every memory of its builder or provider shares ({@link Shared}), and the little this
 * memory remembers between calls (where its log was last known to start, where a chunked window
 * starts, whether it tagged a turn). It does no work itself: the parts in {@link Shared} act on it.
 * Thread-safe; one instance per memory.
 */
final class SessionMemory {

    // Per memory: the id, its session id, the settings every memory of the builder or provider shares
    // and three small fields. AiServices keeps a memory object per id until it is evicted, so a server
    // that has seen 100,000 sessions holds 100,000 of these; views live in the bounded ViewCache.
    private final Object id;
    private final String sessionId;
    private final Shared shared;
    private volatile long firstRetained = -1;
    private volatile boolean tagged;
    // where this memory last knew a chunked window to start, so the state is read only when it moves
    private volatile long anchor = Long.MIN_VALUE;
    // this memory in its view cache (held weakly there)
    private final ViewCache.Key cacheKey;

    SessionMemory(Object id, Shared shared) {
        this.id = Objects.requireNonNull(id, "id");
        this.sessionId = SessionIds.of(id);
        this.shared = Objects.requireNonNull(shared, "shared");
        this.cacheKey = shared.cache.keyFor(this);
    }

    ViewCache.Key cacheKey() {
        return cacheKey;
    }

    /**
     * What every memory of one builder or provider shares: its settings and the engine's parts that
     * act on a memory's session ({@link Appender}, {@link Views}, {@link RoundTrips}, {@link Retainer},
     * {@link Calibration}). Made once by {@link MemoryOptions#engine}, not once per memory.
     */
    static final class Shared {
        final SessionStore store;
        final TokenCountEstimator tokenizer;
        final ViewRules rules;
        final Retention retention;
        final MemoryListener listener;
        final String strategy;
        final Clock clock;
        final Duration openTurnTimeout;
        final ViewCache cache;
        final TokenAccounting accounting;
        final boolean calibrate;
        final ConcurrentSends sends;
        final SendGates gates;
        final long openTurnTimeoutMillis;
        final Appender appender;
        final Views views;
        final RoundTrips roundTrips;
        final Retainer retainer;
        final Calibration calibration;

        Shared(MemoryOptions settings, ViewRules rules, TokenCountEstimator tokenizer, String strategy) {
            this.store = settings.sessionStore();
            this.tokenizer = tokenizer;
            this.rules = rules;
            this.retention = settings.retention();
            this.listener = settings.listener();
            this.strategy = strategy;
            this.clock = settings.clock();
            this.openTurnTimeout = settings.openTurnTimeout();
            this.cache = settings.viewCache();
            this.accounting = settings.accounting();
            this.calibrate = settings.calibrates();
            this.sends = settings.concurrentSends();
            this.gates = SendGates.of(store);
            this.openTurnTimeoutMillis = openTurnTimeout.toMillis();
            this.appender = new Appender(store, tokenizer, cache, clock);
            this.retainer = new Retainer(store, retention);
            this.calibration = new Calibration(accounting, calibrate);
            this.views = new Views(this);
            this.roundTrips = new RoundTrips(this, appender);
        }

        /** True if a memory made with these arguments would get the same shared settings. */
        boolean matches(ViewRules rules, TokenCountEstimator tokenizer, String strategy) {
            return this.rules == rules && this.tokenizer == tokenizer && this.strategy.equals(strategy);
        }
    }

    /** The send gate of this session of this store in this JVM (shared by every memory on it). */
    SendGate gate() {
        return shared.gates.gate(sessionId);
    }

    /** True if only this process reaches the store (its gates know everything that runs). */
    boolean gatesInProcessOnly() {
        return shared.gates.inProcessOnly();
    }

    ConcurrentSends concurrentSends() {
        return shared.sends;
    }

    Duration openTurnTimeout() {
        return shared.openTurnTimeout;
    }

    long openTurnTimeoutMillis() {
        return shared.openTurnTimeoutMillis;
    }

    /** A user message was added through this memory (so a later untagged message is worth a warning). */
    void tagged() {
        if (!tagged) {
            tagged = true; // once: a volatile write on every turn costs a fence
        }
    }

    boolean wasTagged() {
        return tagged;
    }

    /** Where this memory's log was last known to start, or -1 when not known (see {@link Retainer}). */
    long firstRetained() {
        return firstRetained;
    }

    void firstRetained(long index) {
        firstRetained = index;
    }

    /** Where this memory last stored a chunked window to start, or {@link Long#MIN_VALUE} (see {@link Views}). */
    long anchor() {
        return anchor;
    }

    void anchor(long index) {
        anchor = index;
    }

    /** The settings and engine parts this memory shares with every memory of its builder or provider. */
    Shared shared() {
        return shared;
    }

    Object id() {
        return id;
    }

    String sessionId() {
        return sessionId;
    }

    SessionStore store() {
        return shared.store;
    }

    ViewRules rules() {
        return shared.rules;
    }

    Clock clock() {
        return shared.clock;
    }

    SessionState state() {
        return shared.store.state(sessionId);
    }

    MemoryListener listener() {
        return shared.listener;
    }

    /** The ledger, or {@code null}. */
    TokenAccounting accounting() {
        return shared.accounting;
    }

    String strategy() {
        return shared.strategy;
    }

    /** A context that hides nothing and expects no question: what folds and the store-facing reads use. */
    Dialogue.Context context(RequestScope scope) {
        return new Dialogue.Context(shared.clock.instant(), shared.openTurnTimeout, scope, shared.store);
    }

    /** The context of a view for the calling request (its own running turn kept, others' hidden). */
    Dialogue.Context viewContext() {
        return RequestTurns.of(this).context();
    }

    /** The factor token counts are multiplied by for budget decisions (see {@link Calibration#factor}). */
    double calibrationFactor() {
        return shared.calibration.factor(sessionId);
    }

    /** Ends {@code turn} (its request completed or failed without closing it); see {@link Appender#endTurn}. */
    void endTurn(SendGate.RunningTurn turn) {
        shared.appender.endTurn(this, turn);
    }

    @Override
    public String toString() {
        return "SessionMemory{" + sessionId + '}';
    }
}
