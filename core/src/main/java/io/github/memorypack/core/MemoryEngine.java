package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The engine: the {@link ChatMemory} a {@link MemoryStrategy} becomes ({@link MemoryOptions#memory}),
 * and the one place its parts are put together. {@code add} is one atomic append per call
 * ({@link Appender}); {@code messages()} is the view the strategy's plan bounds, with its token
 * ceiling calibrated ({@link Calibration}), read from the tail of the log or extended from the last
 * view ({@link Views}) and selected in whole turns ({@link TurnSelection}); {@code set} and
 * {@code clear} are LangChain4j's round trips applied without loss ({@link RoundTrips}); retention
 * follows every view and clear ({@link Retainer}); a closed turn starts a fold when the options have a
 * summarizer ({@link Folds}). The per-memory part is a {@link SessionMemory}; the parts are shared
 * by every memory of a builder or provider ({@link SessionMemory.Shared}).
 */
final class MemoryEngine implements ChatMemory {

    /** How many entries the first read of an unbounded view takes; it doubles until the whole view is read. */
    static final int FIRST_READ = 256;
    /** How many entries a token window reads first; later reads start from what the last one needed. */
    static final int FIRST_TOKEN_READ = 64;

    private final SessionMemory memory;
    private final MemoryStrategy strategy;
    private final Folds folds;

    MemoryEngine(SessionMemory memory, MemoryStrategy strategy, Folds folds) {
        this.memory = memory;
        this.strategy = strategy;
        this.folds = folds;
    }

    SessionMemory memory() {
        return memory;
    }

    private Appender appender() {
        return memory.shared().appender;
    }

    private Views views() {
        return memory.shared().views;
    }

    /** The summary a view of {@code memory} (made by {@link MemoryOptions#memory}) shows, if any. */
    static Optional<Summary> summaryOf(ChatMemory memory) {
        SessionMemory session = ((MemoryEngine) memory).memory;
        SessionState state = session.state();
        return Optional.ofNullable(Dialogue.of(state, List.of(), false, session.context(null)).summary);
    }

    @Override
    public Object id() {
        return memory.id();
    }

    @Override
    public void add(ChatMessage message) {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
        added(appender().add(memory, List.of(message)));
    }

    @Override
    public void add(ChatMessage... messages) {
        if (messages != null && messages.length > 0) {
            add(Arrays.asList(messages));
        }
    }

    @Override
    public void add(Iterable<ChatMessage> messages) {
        if (messages != null) {
            List<ChatMessage> list = Checks.messages(messages, false);
            if (!list.isEmpty()) {
                added(appender().add(memory, list));
            }
        }
    }

    private void added(List<ChatMessage> conversation) {
        if (folds == null) {
            return;
        }
        for (ChatMessage message : conversation) {
            if (message instanceof AiMessage && !((AiMessage) message).hasToolExecutionRequests()) {
                folds.turnFinished();
                return;
            }
        }
    }

    /**
     * The strategy's view for the calling request; under {@link ConcurrentSends#queue()} a new
     * request waits here for another request's running turn to close ({@link Views#awaitOtherRequests}).
     */
    View view() {
        View first = compute();
        return first.hiddenRunning() == 0 ? first : views().awaitOtherRequests(memory, first, this::compute);
    }

    /**
     * One view: the strategy plans over the session; a plan that needs every turn (or whose strategy
     * read them) is applied to every turn after the summary, any other to the tail of the log.
     */
    private View compute() {
        SessionState state = memory.state();
        StrategySession session = StrategySession.forView(memory, state);
        MemoryStrategy.Plan plan = strategy.plan(session);
        if (plan == null) {
            throw new IllegalStateException("strategy " + strategy.name() + " planned null for chat memory "
                    + memory.sessionId());
        }
        ViewLimit limit = memory.shared().calibration.limitOf(memory.sessionId(), plan);
        if (plan.readsEveryTurn() || session.dialogueIfRead() != null) {
            return memory.rules().select(session.dialogue(), state, limit, plan, strategy);
        }
        return views().tail(memory, state, limit, firstRead(limit), strategy);
    }

    /** How many of the newest entries a view with {@code limit} reads first. */
    private static int firstRead(ViewLimit limit) {
        if (!limit.cuts() || limit.unit() == null) {
            return FIRST_READ;
        }
        switch (limit.unit()) {
            case MESSAGES:
                return limit.value() + limit.value() / 2 + 4;
            case TURNS:
                return limit.value() * 4 + 4;
            default:
                return FIRST_TOKEN_READ;
        }
    }

    @Override
    public List<ChatMessage> messages() {
        return views().show(memory, view());
    }

    @Override
    public void set(Iterable<ChatMessage> messages) {
        View current = view();
        views().afterView(memory, current); // reported like a messages() call (MemoryListener#onView)
        memory.shared().roundTrips.set(memory, messages, current);
    }

    @Override
    public void clear() {
        memory.shared().roundTrips.clear(memory);
    }

    @Override
    public String toString() {
        return strategy.name() + "{id=" + memory.sessionId() + '}';
    }
}
