package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine every memory strategy composes: one session of one store. It appends (token counts
 * computed once, turn and request metadata, idempotency keys, one atomic append per {@code add}
 * call), keeps the system message and the summary in the state, computes views over the tail of the
 * log (extending the last one when it can), applies LangChain4j's round trips ({@link #set},
 * {@link #clear}) without losing what the view did not show, and applies retention. Thread-safe;
 * one instance per memory.
 */
final class SessionMemory {

    private static final Logger LOG = LoggerFactory.getLogger(SessionMemory.class);

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
     * What every memory of one builder or provider shares (store, rules, listener, cache, ...): made
     * once by {@link MemoryOptions#engine}, not once per memory.
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
        tagged = true;
    }

    boolean wasTagged() {
        return tagged;
    }

    /** The settings this memory shares with every memory of its builder or provider. */
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

    // ---------------------------------------------------------------- appends

    /**
     * Appends messages as one atomic store append. A system message equal to the current one is a
     * no-op; a different one is appended as a record and becomes the state's system message (the
     * append keyed by the change, so requests that make the same change at once store it once). A
     * summary message (from this memory's own view) goes back to the state, never to the log. Each
     * entry carries its turn, request and attempt ({@link RequestTurns}); a user message that starts a
     * request is admitted first ({@link ConcurrentSends}); the append carries the request's next
     * idempotency key.
     *
     * @return the messages appended that are not system messages (what may end a turn)
     * @throws SessionBusyException if another request's turn runs and the setting refuses this one
     * @throws StoreException if the store failed; a change of the system message that could not reach
     *         the state is undone in the log first
     */
    List<ChatMessage> add(List<ChatMessage> messages) {
        RequestTurns turns = RequestTurns.of(this);
        ChatMessage only = messages.size() == 1 ? messages.get(0) : null;
        if (only != null && !(only instanceof SystemMessage) && !(only instanceof SummaryBlock)) {
            // what AiServices adds every time: one conversation message, so the state is read only for a hashed id
            SessionState state = SessionIds.isHashed(sessionId) ? shared.store.state(sessionId) : null;
            append(turns, List.of(turns.entry(only, count(only))), turns.key());
            rememberMemoryId(state);
            return messages;
        }
        SessionState state = shared.store.state(sessionId);
        SystemMessage system = null;
        boolean systemChanged = false;
        String summaryText = null;
        int summaryAt = -1;
        List<NewEntry> batch = new ArrayList<>(messages.size());
        List<ChatMessage> conversation = new ArrayList<>(messages.size());
        SystemMessage current = state.systemMessage().orElse(null);
        for (ChatMessage message : messages) {
            if (message instanceof SummaryMessage || message instanceof SummaryBlock) {
                summaryText = message instanceof SummaryMessage ? ((SummaryMessage) message).summaryText()
                        : ((SummaryBlock) message).summaryText();
                summaryAt = batch.size();
                if (message instanceof SummaryMessage && ((SummaryMessage) message).applicationSystemMessage().isPresent()) {
                    message = ((SummaryMessage) message).applicationSystemMessage().get();
                } else {
                    continue;
                }
            }
            if (message instanceof SystemMessage) {
                SystemMessage candidate = (SystemMessage) message;
                if (candidate.equals(system == null ? current : system)) {
                    continue;
                }
                system = candidate;
                systemChanged = true;
                batch.add(turns.entry(candidate, count(candidate)));
                continue;
            }
            batch.add(turns.entry(message, count(message)));
            conversation.add(message);
        }
        if (batch.isEmpty() && summaryText == null) {
            return conversation;
        }
        // the same change of the system message, made by requests at once, is one keyed append
        String key = batch.size() == 1 && systemChanged ? systemKey(state, system) : turns.key();
        List<Entry> stored = batch.isEmpty() ? List.of() : append(turns, batch, key);
        rememberMemoryId(state);
        if (systemChanged || summaryText != null) {
            long systemIndex = -1;
            for (Entry entry : stored) {
                if (entry.message() instanceof SystemMessage) {
                    systemIndex = entry.index();
                }
            }
            long coveredUntil = summaryAt < 0 ? -1
                    : summaryAt < stored.size() ? stored.get(summaryAt).index() : shared.store.nextIndex(sessionId);
            updateStateOrUndo(stored, key, systemChanged ? system : null, false, systemIndex, summaryText, coveredUntil,
                    "add");
        }
        return conversation;
    }

    /** Appends {@code batch} for {@code turns}; the turns it starts or closes follow the outcome. */
    private List<Entry> append(RequestTurns turns, List<NewEntry> batch, String key) {
        List<Entry> stored;
        try {
            stored = shared.store.append(sessionId, batch, key);
        } catch (RuntimeException e) {
            turns.failed();
            throw e;
        }
        turns.stored();
        return stored;
    }

    /**
     * The idempotency key of a change to {@code system}: the same for every request that changes the
     * system message of the same state to the same text (the log position the change replaces, and a
     * digest of the new message).
     */
    private static String systemKey(SessionState state, SystemMessage system) {
        long replaces = Math.max(Records.longAttribute(state, Records.SYSTEM_INDEX, -1),
                Records.longAttribute(state, Records.CLEARED_AT, -1));
        return "memory-pack.system#" + replaces + "#" + Records.digest(system.text());
    }

    /** Under a hashed session id, keeps the memory id in the state if {@code before} (read before the append) lacks it. */
    private void rememberMemoryId(SessionState before) {
        if (SessionIds.isHashed(sessionId) && !before.attributes().containsKey(SessionIds.MEMORY_ID_ATTRIBUTE)) {
            SessionIds.remember(shared.store, sessionId, id);
        }
    }

    private int count(ChatMessage message) {
        return shared.tokenizer == null ? Entry.UNKNOWN_TOKENS : shared.tokenizer.estimateTokenCountInMessage(message);
    }

    /**
     * {@link #updateState} after an append that holds the change: log and state change together or not
     * at all. When the state cannot be written, the entries just appended are superseded again (one
     * set record: views show what they showed before), and the failure is thrown; when that undo fails
     * too, its failure is added as suppressed and views follow the log until the next update.
     */
    private void updateStateOrUndo(List<Entry> appended, String key, SystemMessage system, boolean removeSystem,
            long systemIndex, String summaryText, long coveredUntil, String call) {
        try {
            updateState(system, removeSystem, systemIndex, summaryText, coveredUntil);
        } catch (StoreException e) {
            StoreException failure = new StoreException(call + "() on chat memory " + sessionId + " could not store the"
                    + " session state; the messages it appended were superseded again, so views and state are as"
                    + " before", e);
            if (!appended.isEmpty()) {
                List<Long> indices = new ArrayList<>(appended.size());
                for (Entry entry : appended) {
                    indices.add(entry.index());
                }
                try {
                    shared.store.append(sessionId, List.of(NewEntry.of(Records.set(indices), 0)),
                            key == null ? null : key + "#undo");
                } catch (RuntimeException undo) {
                    failure = new StoreException(call + "() on chat memory " + sessionId + " could not store the session"
                            + " state, nor undo its append: views show the change, the state does not until its"
                            + " next update", e);
                    failure.addSuppressed(undo);
                }
            }
            shared.cache.remove(this);
            throw failure;
        }
    }

    /**
     * Stores a new system message (recorded at {@code systemIndex}; none if {@code removeSystem}) and/or summary, retrying on
     * conflicts. A crash before this leaves the log record, which views take over the state anyway.
     */
    private void updateState(SystemMessage system, boolean removeSystem, long systemIndex, String summaryText,
            long coveredUntil) {
        while (true) {
            SessionState state = shared.store.state(sessionId);
            SessionState next = state;
            Map<String, String> attributes = new HashMap<>(state.attributes());
            if (system != null || removeSystem) {
                next = next.withSystemMessage(system);
                attributes.put(Records.SYSTEM_INDEX, Long.toString(systemIndex));
            }
            Summary old = state.summary().orElse(null);
            if (summaryText != null && !summaryText.isBlank() && (old == null || !old.text().equals(summaryText))) {
                // a summary coming back (after clear(), or edited through set()): it covers what it covered,
                // or, when the state has none any more, everything before the messages that follow it
                long covers = old != null ? old.coveredUntil() : Math.max(0, coveredUntil);
                next = next.withSummary(new Summary(summaryText, covers, Entry.UNKNOWN_TOKENS, shared.clock.instant()));
            }
            next = next.withAttributes(attributes);
            if (next.equals(state) || shared.store.compareAndSetState(sessionId, state.version(), next).isPresent()) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- views

    /** A context that hides nothing and expects no question: what folds and the store-facing reads use. */
    Dialogue.Context context(RequestScope scope) {
        return new Dialogue.Context(shared.clock.instant(), shared.openTurnTimeout, scope);
    }

    /** The context of a view for the calling request (its own running turn kept, others' hidden). */
    Dialogue.Context viewContext() {
        return RequestTurns.of(this).context();
    }

    /**
     * The view over the tail of the log for the calling request. When this memory's last view can be
     * extended ({@link ViewRules#extend}) for this caller, only the entries appended since are read.
     * Otherwise reads the last {@code firstRead} entries, and twice as many again and again, while
     * the view could still take older turns (or the caller's own turn starts before them). A view
     * that depends on who asks (it hid a turn) is not kept for the next read.
     */
    View tail(SessionState state, ViewLimit limit, int firstRead, MemoryStrategy strategy) {
        RequestTurns turns = RequestTurns.of(this);
        SendGate.RunningTurn own = turns.own();
        boolean cacheable = turns.requestId() == null;
        // a token limit read by a new request leaves room for its question: computed anew every time
        boolean extensible = cacheable && !(own == null && limit.countsTokens() && limit.cuts());
        if (extensible) {
            View previous = shared.cache.get(this);
            if (previous != null && previous.extendable()) {
                List<Entry> fresh = shared.store.read(sessionId, previous.lastIndex(), Integer.MAX_VALUE);
                if (!fresh.isEmpty() && previous.computedThrough(fresh.get(0))) {
                    Optional<View> extended =
                            shared.rules.extend(previous, state, fresh.subList(1, fresh.size()), limit, strategy);
                    if (extended.isPresent() && extended.get().fitsCaller(own == null ? null : own.turn)) {
                        shared.cache.put(this, extended.get());
                        return extended.get();
                    }
                }
            }
        }
        View view = readTail(state, limit, Math.max(firstRead, shared.cache.readHint(this)), turns.context(), strategy);
        // a view cut with room for a question would extend wrongly once the question is in: not kept either
        if (extensible && !view.hiddenAny()) {
            shared.cache.put(this, view);
        } else {
            shared.cache.remove(this);
        }
        return view;
    }

    private View readTail(SessionState state, ViewLimit limit, int firstRead, Dialogue.Context context,
                          MemoryStrategy strategy) {
        int count = Math.max(1, firstRead);
        while (true) {
            List<Entry> entries = shared.store.readLast(sessionId, count);
            boolean fromStart = entries.size() < count;
            View view = shared.rules.render(state, entries, fromStart, limit, context, strategy);
            if (!view.needsOlderEntries() || fromStart || count == Integer.MAX_VALUE) {
                shared.cache.hint(this, count);
                return view;
            }
            count = count > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : count * 2;
        }
    }

    /**
     * Under {@link ConcurrentSends#queue()}, a view for a caller that runs no turn (a request about to
     * start) that had to leave out another request's running turn waits until that turn has closed,
     * reading the view again (after a pause that grows from 5 to 200 ms, or at once when a turn of this
     * process closes), so the request continues from it. At most {@code maxWait}: then the view without
     * that turn is returned, and the request's user message that follows is refused if it still runs.
     * Under {@code refuse} and {@code branch}, or for a caller that runs a turn, {@code first}.
     */
    View awaitOtherRequests(View first, java.util.function.Supplier<View> again) {
        if (first.hiddenRunning() == 0 || shared.sends.mode() != ConcurrentSends.Mode.QUEUE) {
            return first;
        }
        RequestTurns turns = RequestTurns.of(this);
        if (turns.own() != null) {
            return first;
        }
        long deadline = System.nanoTime() + shared.sends.maxWait().toNanos();
        long pause = SendGate.FIRST_PAUSE_NANOS;
        View view = first;
        while (view.hiddenRunning() > 0) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            turns.gate.pause(Math.min(pause, remaining));
            pause = Math.min(pause * 2, SendGate.MAX_PAUSE_NANOS);
            view = again.get();
        }
        turns.scope.waited(turns.gate, deadline);
        return view;
    }

    /** Ends {@code turn} (its request completed or failed without closing it): an end record, then the gate. */
    void endTurn(SendGate.RunningTurn turn) {
        try {
            shared.store.append(sessionId, List.of(NewEntry.of(Records.end(turn.turn), 0)), turn.turn + "#end");
        } catch (RuntimeException e) {
            LOG.warn("could not record in chat memory {} that the request of {} ended; it ends after openTurnTimeout",
                    sessionId, turn, e);
        } finally {
            turn.gate.finish(turn);
            shared.cache.remove(this);
        }
    }

    /** The dialogue of every entry from {@code fromIndex} on, for the calling request's view. */
    Dialogue dialogueFrom(SessionState state, long fromIndex) {
        List<Entry> entries = shared.store.read(sessionId, fromIndex, Integer.MAX_VALUE);
        return Dialogue.of(state, entries, true, viewContext());
    }

    MemoryListener listener() {
        return shared.listener;
    }

    /** The ledger, or {@code null}. */
    TokenAccounting accounting() {
        return shared.accounting;
    }

    /**
     * A token limit as the view applies it: divided by the session's calibration factor when
     * calibration is on (the factor rounded to 1%, so the limit, and with it the cached view, changes
     * only when the factor really moves), else as it is.
     */
    int calibrated(int tokens) {
        if (!shared.calibrate) {
            return tokens;
        }
        double factor = Math.round(shared.accounting.factor(sessionId) * 100) / 100.0;
        return Math.max(1, (int) Math.floor(tokens / factor));
    }

    /** The limit a view applies for {@code plan}: its token ceiling calibrated when calibration is on. */
    ViewLimit limitOf(MemoryStrategy.Plan plan) {
        ViewLimit limit = plan.limit;
        return shared.calibrate && limit.countsTokens() ? plan.limitOf(calibrated(limit.value())) : limit;
    }

    /** The factor token counts are multiplied by for budget decisions: the session's when calibrating, else 1. */
    double calibrationFactor() {
        return shared.calibrate ? shared.accounting.factor(sessionId) : 1.0;
    }

    String strategy() {
        return shared.strategy;
    }

    /** Tells the listener about the view (and its overflow, if any), and applies retention below what it shows. */
    void afterView(View view) {
        if (view.limit().isChunked()) {
            keepAnchor(view);
        }
        if (shared.accounting != null) {
            shared.accounting.bind(sessionId, shared.strategy);
        }
        if (shared.listener != MemoryListener.logging() && shared.listener != MemoryListener.NONE) {
            shared.listener.onView(new MemoryListener.ViewShown(sessionId, shared.strategy, view.messages().size(),
                    tokens(view)));
        }
        view.overflow(sessionId).ifPresent(shared.listener::onOverflow);
        if (view.firstIndex() >= 0) {
            retain(view.firstIndex());
        }
    }

    /**
     * Stores where a chunked window now starts, when that moved, so every memory of the session (other
     * instances, after a restart) shows the same prefix. A lost race is fine: the next view retries.
     */
    private void keepAnchor(View view) {
        long cut = view.cutIndex();
        if (cut < 0 || cut == anchor) {
            return;
        }
        String key = view.limit().anchorKey();
        SessionState state = shared.store.state(sessionId);
        if (Records.longAttribute(state, key, -1) == cut) {
            anchor = cut;
            return;
        }
        Map<String, String> attributes = new HashMap<>(state.attributes());
        attributes.put(key, Long.toString(cut));
        try {
            if (shared.store.compareAndSetState(sessionId, state.version(), state.withAttributes(attributes))
                    .isPresent()) {
                anchor = cut; // only once stored: after a lost race the next view tries again
            }
        } catch (StoreException e) {
            LOG.warn("could not store where the window of chat memory {} starts; the next view retries", sessionId, e);
        }
        shared.cache.remove(this);
    }

    /** The view's size in tokens from stored counts (its own when it counted tokens), or -1 without counts. */
    private long tokens(View view) {
        if (view.limit().countsTokens()) {
            return view.size();
        }
        if (shared.tokenizer == null) {
            return -1;
        }
        List<ChatMessage> messages = view.messages();
        List<Entry> sources = view.sources();
        int pinned = 0;
        while (pinned < messages.size() && sources.get(pinned) == null) {
            pinned++;
        }
        long tokens = shared.rules.pinnedTokens(messages.subList(0, pinned)); // counted once per system message and summary
        for (int i = pinned; i < messages.size(); i++) {
            Entry source = sources.get(i);
            tokens += source != null && source.hasTokenCount() && source.message() == messages.get(i)
                    ? source.tokenCount() : shared.tokenizer.estimateTokenCountInMessage(messages.get(i));
        }
        return tokens;
    }

    /** A mutable copy of the view's messages, after {@link #afterView}. */
    List<ChatMessage> show(View view) {
        afterView(view);
        return new ArrayList<>(view.messages());
    }

    // ---------------------------------------------------------------- round trips

    /**
     * LangChain4j's "replace all messages", applied to what {@code current} (this thread's view)
     * showed: entries up to the first message that differs stay exactly as they are, and so does
     * everything the view did not show (history before it, a tool call in flight, superseded
     * attempts). From the first difference on, the shown entries are superseded by one set record
     * and the new messages are appended after it, in the same atomic append. Previews and image notes
     * map back to their full entries; synthetic repairs are never stored; a summary message goes
     * back to the state. Writes nothing when nothing changed.
     *
     * @throws IllegalArgumentException if {@code messages} is null, empty or holds null
     */
    void set(Iterable<ChatMessage> messages, View current) {
        List<ChatMessage> list = checkedList(messages, true);
        SessionState state = shared.store.state(sessionId);
        List<ChatMessage> shown = current.messages();
        List<Entry> sources = current.sources();
        int pinned = 0;
        while (pinned < shown.size() && sources.get(pinned) == null
                && (shown.get(pinned) instanceof SystemMessage || shown.get(pinned) instanceof SummaryBlock)) {
            pinned++;
        }
        ChatMessage preface = current.preface(); // the strategy's: never stored, so never compared
        if (preface != null && pinned < shown.size() && shown.get(pinned) == preface) {
            pinned++;
        }
        // the pinned part of the list: system message and summary
        SystemMessage system = null;
        String summaryText = null;
        List<ChatMessage> rest = new ArrayList<>(list.size());
        for (ChatMessage message : list) {
            if (message instanceof SummaryMessage) {
                summaryText = ((SummaryMessage) message).summaryText();
                system = ((SummaryMessage) message).applicationSystemMessage().orElse(system);
            } else if (message instanceof SummaryBlock) {
                summaryText = ((SummaryBlock) message).summaryText();
            } else if (message instanceof SystemMessage) {
                system = (SystemMessage) message;
            } else if (preface == null || !message.equals(preface)) {
                rest.add(message);
            }
        }
        SystemMessage currentSystem = null;
        for (int i = 0; i < pinned; i++) {
            if (shown.get(i) instanceof SystemMessage && !(shown.get(i) instanceof SummaryMessage)) {
                currentSystem = (SystemMessage) shown.get(i);
            } else if (shown.get(i) instanceof SummaryMessage) {
                currentSystem = ((SummaryMessage) shown.get(i)).applicationSystemMessage().orElse(currentSystem);
            }
        }
        boolean systemChanged = system != null && !system.equals(currentSystem);
        // LangChain4j's set replaces all messages: a list without a system message removes it
        boolean systemRemoved = system == null && currentSystem != null;
        String currentSummary = state.summary().map(Summary::text).orElse(null);
        boolean summaryChanged = summaryText != null && !summaryText.equals(currentSummary);

        rest = withoutHistoryBeforeView(rest, shown, sources, pinned, state);
        int p = 0;
        int shownCount = shown.size() - pinned;
        while (p < rest.size() && p < shownCount && rest.get(p).equals(shown.get(pinned + p))) {
            p++;
        }
        if (p == rest.size() && p == shownCount && !systemChanged && !systemRemoved && !summaryChanged) {
            return;
        }
        // what the list brings from the first difference on, mapped back to full entries
        Map<ChatMessage, Entry> byValue = new HashMap<>();
        for (int i = pinned + p; i < shown.size(); i++) {
            if (sources.get(i) != null) {
                byValue.putIfAbsent(shown.get(i), sources.get(i));
            }
        }
        List<Long> superseded = new ArrayList<>();
        for (int i = pinned + p; i < shown.size(); i++) {
            Entry source = sources.get(i);
            if (source != null) {
                superseded.add(source.index());
            }
        }
        RequestTurns turns = RequestTurns.of(this);
        List<NewEntry> batch = new ArrayList<>(rest.size() - p + 2);
        if (!superseded.isEmpty()) {
            batch.add(NewEntry.of(Records.set(superseded), 0));
        }
        for (int j = p; j < rest.size(); j++) {
            ChatMessage message = rest.get(j);
            Entry source = byValue.get(message);
            if (source == null && isRepair(message)) {
                continue; // a synthetic repair a view made: never stored as a real result
            }
            if (source != null) {
                // a message the view showed (a preview or an image note maps back to its full entry)
                batch.add(NewEntry.of(source.message(), count(source.message()), source.metadata()));
            } else {
                batch.add(turns.entry(message, count(message))); // a new message: tagged like an add
            }
        }
        if (systemChanged) {
            batch.add(turns.entry(system, count(system)));
        } else if (systemRemoved) {
            batch.add(NewEntry.of(Records.noSystem(), 0));
        }
        String key = turns.key();
        List<Entry> stored = batch.isEmpty() ? List.of() : append(turns, batch, key);
        shared.cache.remove(this);
        if (systemChanged || systemRemoved || summaryChanged) {
            long systemIndex = systemChanged || systemRemoved ? stored.get(stored.size() - 1).index() : -1;
            updateStateOrUndo(stored, key, systemChanged ? system : null, systemRemoved, systemIndex,
                    summaryChanged ? summaryText : null, state.summary().map(Summary::coveredUntil).orElse(0L), "set");
        }
    }

    /**
     * A list that brings the conversation from before the view too (LangChain4j's "replace all
     * messages" with the whole history): its part that equals what the log holds just before the view,
     * followed by the view's first message, is already there and is not stored again. Reads the log
     * only when the list does not start with the view's first message.
     */
    private List<ChatMessage> withoutHistoryBeforeView(List<ChatMessage> rest, List<ChatMessage> shown, List<Entry> sources,
            int pinned, SessionState state) {
        if (pinned >= shown.size() || sources.get(pinned) == null || rest.size() < 2
                || rest.get(0).equals(shown.get(pinned))) {
            return rest;
        }
        long viewStart = sources.get(pinned).index();
        List<Entry> entries = shared.store.read(sessionId, Records.longAttribute(state, Records.CLEARED_AT, -1) + 1,
                Integer.MAX_VALUE);
        List<ChatMessage> before = new ArrayList<>();
        for (Entry entry : Dialogue.live(state, entries)) {
            if (entry.index() < viewStart && !(entry.message() instanceof SystemMessage)) {
                before.add(entry.message());
            }
        }
        for (int k = Math.min(before.size(), rest.size() - 1); k > 0; k--) {
            if (rest.get(k).equals(shown.get(pinned))
                    && rest.subList(0, k).equals(before.subList(before.size() - k, before.size()))) {
                return rest.subList(k, rest.size());
            }
        }
        return rest;
    }

    private static boolean isRepair(ChatMessage message) {
        return message instanceof ToolExecutionResultMessage
                && Dialogue.INTERRUPTED_TOOL_RESULT.equals(((ToolExecutionResultMessage) message).text());
    }

    /**
     * Starts the conversation over in every view: appends a clear record and resets the state's
     * system message and summary as of that record. With a retention that trims, everything before
     * the record is trimmed for good; otherwise it stays in the log (exportable, searchable, never
     * shown again).
     */
    void clear() {
        RequestScope scope = RequestScope.activeOrThread();
        List<Entry> stored = shared.store.append(sessionId, List.of(NewEntry.of(Records.clear(), 0)),
                scope.nextKey(sessionId));
        long index = stored.get(stored.size() - 1).index();
        while (true) {
            SessionState state = shared.store.state(sessionId);
            if (Records.longAttribute(state, Records.CLEARED_AT, -1) >= index) {
                break;
            }
            Map<String, String> attributes = new HashMap<>(state.attributes());
            attributes.put(Records.CLEARED_AT, Long.toString(index));
            attributes.put(Records.SYSTEM_INDEX, Long.toString(index));
            SessionState next = state.withSystemMessage(null).withSummary(null).withAttributes(attributes);
            if (shared.store.compareAndSetState(sessionId, state.version(), next).isPresent()) {
                break;
            }
        }
        shared.cache.remove(this);
        firstRetained = -1;
        retain(index + 1);
    }

    // ---------------------------------------------------------------- retention

    /**
     * Lets the retention policy trim the log, never at or after {@code neededFrom} (the first index
     * any view of this memory still needs).
     */
    void retain(long neededFrom) {
        if (!shared.retention.trims()) {
            return;
        }
        long first = firstRetained;
        if (first < 0) {
            List<Entry> oldest = shared.store.read(sessionId, 0, 1);
            if (oldest.isEmpty()) {
                return;
            }
            first = oldest.get(0).index();
        }
        long cut = Math.min(shared.retention.trimBefore(first, shared.store.nextIndex(sessionId)), neededFrom);
        if (cut > first) {
            shared.store.trim(sessionId, cut);
            first = cut;
        }
        firstRetained = first;
    }

    /** The messages of an {@code add(Iterable)} or {@code set} call, checked. */
    static List<ChatMessage> checkedList(Iterable<ChatMessage> messages, boolean nonEmpty) {
        if (messages == null) {
            throw new IllegalArgumentException("messages must not be null");
        }
        List<ChatMessage> list = new ArrayList<>();
        for (ChatMessage message : messages) {
            if (message == null) {
                throw new IllegalArgumentException("messages must not contain null");
            }
            list.add(message);
        }
        if (nonEmpty && list.isEmpty()) {
            throw new IllegalArgumentException("messages must not be empty");
        }
        return list;
    }

    @Override
    public String toString() {
        return "SessionMemory{" + sessionId + '}';
    }
}
