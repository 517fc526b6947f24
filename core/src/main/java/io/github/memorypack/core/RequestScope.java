package io.github.memorypack.core;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.observability.api.AiServiceListenerRegistrar;
import dev.langchain4j.observability.api.DefaultAiServiceListenerRegistrar;
import dev.langchain4j.observability.api.event.AiServiceCompletedEvent;
import dev.langchain4j.observability.api.event.AiServiceErrorEvent;
import dev.langchain4j.observability.api.event.AiServiceEvent;
import dev.langchain4j.observability.api.event.AiServiceRequestIssuedEvent;
import dev.langchain4j.observability.api.event.AiServiceResponseReceivedEvent;
import dev.langchain4j.observability.api.event.AiServiceStartedEvent;
import dev.langchain4j.observability.api.event.ToolExecutedEvent;
import dev.langchain4j.observability.api.listener.AiServiceListener;
import dev.langchain4j.spi.observability.AiServiceListenerRegistrarFactory;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * Identifies a request, so that a retried request shows once and a request's messages stay
 * together when requests for one session interleave.
 *
 * <p>Inside {@link #call}/{@link #run} every call is one <em>attempt</em> of the request. Every
 * message a Memory Pack memory appends carries the request id and the attempt, and an idempotency
 * key ({@code requestId#attempt#n}, one per {@code add()} call), so an append that a client or a
 * driver sends twice is stored once. When a request is retried with the same id (a client retry, a
 * double click, a redelivered queue message), the new attempt's messages are stored and the
 * earlier attempt's are kept in the log but never shown again: every view shows the latest attempt
 * of a request, and the retrying request itself never sees its earlier attempts. So a retried tool
 * call is answered with the new attempt's results and cannot loop.
 *
 * <pre>{@code
 * String answer = RequestScope.call(httpRequestId, () -> assistant.chat(sessionId, question));
 * }</pre>
 *
 * <p><b>Threads.</b> A scope is bound to the calling thread. LangChain4j runs part of a streaming
 * request ({@code TokenStream}) on other threads; register {@link #aiServiceListeners()} on
 * {@code AiServices} and the scope (and {@link TokenAccounting}) follows each request onto them.
 * Without the listeners, a message added from a thread of no request (a streaming callback) belongs
 * to the one turn running on its session in this process, with that turn's request and attempt, so a
 * retry still shows once; when several run at once ({@link ConcurrentSends#branch()}) such a message
 * is refused with {@link IllegalStateException}. Scopes nest: an inner scope hides the outer one until
 * it ends.
 *
 * <p>Outside any scope, a thread is its own scope (without a request id): a blocking
 * {@code AiServices} call runs on one thread, so the turn a thread started is that thread's request's.
 */
public final class RequestScope {

    /** Longest accepted request id, in characters (the key adds the attempt and an ordinal). */
    public static final int MAX_REQUEST_ID_LENGTH = 200;

    // a thread's scopes, in one thread-local (read on every memory call): an explicit scope (call/run),
    // then one bound by the listeners, then this thread's own turns
    private static final ThreadLocal<Scopes> SCOPES = ThreadLocal.withInitial(Scopes::new);

    /** The scopes of one thread; only that thread reads or writes them. */
    private static final class Scopes {
        RequestScope current;
        RequestScope bound;
        final RequestScope thread = new RequestScope(null, true);
    }
    // requests between the listeners' started event and their completed or error event
    private static final ConcurrentMap<UUID, RequestScope> INVOCATIONS = new ConcurrentHashMap<>();
    private static final List<AiServiceListener<?>> LISTENERS = List.of(
            listener(AiServiceStartedEvent.class), listener(AiServiceRequestIssuedEvent.class),
            listener(AiServiceResponseReceivedEvent.class), listener(ToolExecutedEvent.class),
            listener(AiServiceCompletedEvent.class), listener(AiServiceErrorEvent.class));
    /** How long after a read waited for a running turn the user message that follows uses the same wait. */
    private static final long WAIT_CARRIES_NANOS = 1_000_000_000L;

    private final String requestId;
    private final String attemptId;
    private final Map<String, Integer> ordinals;
    private final boolean threadConfined;
    // the turn this scope runs in each session (by the session's gate): a thread's own scope keeps them in
    // threadTurns (touched by that thread only), any other in turns. Keyed by gates, which hold no store:
    // a dropped store is not kept reachable
    private final Map<SendGate, SendGate.RunningTurn> turns;
    private final RecentTurns threadTurns;
    private volatile Object memoryId;
    // the user message AiServices is about to add (the listeners' started event), until it is added
    private volatile UserMessage question;
    // a request the listeners follow has completed or failed: a thread still bound to it ignores it
    private volatile boolean finished;
    // a read of this scope waited for another request's turn until waitedUntil (nanoTime), at waitedAt
    private volatile SendGate waitedGate;
    private volatile long waitedUntil;
    private volatile long waitedAt;
    // the turn each thread last started in each session (the scope is the turn's owner)
    private static final ThreadLocal<RecentTurns> LAST_TURNS = ThreadLocal.withInitial(RecentTurns::new);

    private RequestScope(String requestId, boolean threadConfined) {
        this.requestId = requestId;
        this.attemptId = EntryTags.newId();
        this.threadConfined = threadConfined;
        if (threadConfined) {
            this.ordinals = Map.of();
            this.turns = null;
            this.threadTurns = new RecentTurns();
        } else {
            this.ordinals = new ConcurrentHashMap<>();
            this.turns = new ConcurrentHashMap<>();
            this.threadTurns = null;
        }
    }

    /**
     * Runs {@code supplier} as a new attempt of the request {@code requestId}.
     *
     * @param <T> what {@code supplier} returns
     * @param requestId the request id: non-blank, at most {@link #MAX_REQUEST_ID_LENGTH} characters
     * @param supplier the work to run in the scope
     * @return what {@code supplier} returns
     * @throws IllegalArgumentException if the id is null, blank or longer than {@link #MAX_REQUEST_ID_LENGTH}
     */
    public static <T> T call(String requestId, Supplier<T> supplier) {
        Objects.requireNonNull(supplier, "supplier");
        RequestScope scope = new RequestScope(checkRequestId(requestId), false);
        Scopes scopes = SCOPES.get();
        RequestScope outer = scopes.current;
        scopes.current = scope;
        try {
            return supplier.get();
        } finally {
            scopes.current = outer;
        }
    }

    /**
     * {@link #call} for work without a result.
     *
     * @param requestId the request id: non-blank, at most {@link #MAX_REQUEST_ID_LENGTH} characters
     * @param runnable the work to run in the scope
     */
    public static void run(String requestId, Runnable runnable) {
        Objects.requireNonNull(runnable, "runnable");
        call(requestId, () -> {
            runnable.run();
            return null;
        });
    }

    /**
     * The current request id on this thread, if any.
     *
     * @return the current request id on this thread, if any
     */
    public static Optional<String> currentRequestId() {
        RequestScope scope = active();
        return scope == null ? Optional.empty() : Optional.ofNullable(scope.requestId);
    }

    /**
     * Listeners to register on {@code AiServices} ({@code
     * .registerListeners(RequestScope.aiServiceListeners())})
     * so that the current request scope, the turn a request belongs to and the memory id that
     * {@link TokenAccounting} charges follow each request onto the threads LangChain4j uses for
     * streaming and tool execution. They keep nothing after a request completes or fails.
     *
     * <p>{@link Experimental}: it rests on LangChain4j's {@code AiServiceListener} API, which
     * LangChain4j marks experimental.
     *
     * @return new listeners, to register on each {@code AiServices} builder
     */
    @Experimental
    public static List<AiServiceListener<?>> aiServiceListeners() {
        return LISTENERS;
    }

    /** The scope of an explicit request or of a request the listeners follow, or null. */
    static RequestScope active() {
        return active(SCOPES.get());
    }

    private static RequestScope active(Scopes scopes) {
        RequestScope scope = scopes.current;
        if (scope != null) {
            return scope;
        }
        scope = scopes.bound;
        if (scope != null && scope.finished) {
            scopes.bound = null; // left behind on a caller thread by a streaming request that has ended
            return null;
        }
        return scope;
    }

    /** The active scope, or this thread's own (which has no request id; {@link #threadConfined()}). */
    static RequestScope activeOrThread() {
        Scopes scopes = SCOPES.get();
        RequestScope scope = active(scopes);
        return scope != null ? scope : scopes.thread;
    }

    /** The request id, or null for a thread's own scope and for requests the listeners follow without one. */
    String requestId() {
        return requestId;
    }

    String attemptId() {
        return attemptId;
    }

    /** The idempotency key for the next append of this scope to the session, or null without a request id. */
    String nextKey(String sessionId) {
        if (requestId == null) {
            return null;
        }
        int ordinal = ordinals.merge(sessionId, 1, Integer::sum) - 1;
        return requestId + '#' + attemptId + '#' + ordinal;
    }

    /** True if this is a thread's own scope (no explicit request, no listeners). */
    boolean threadConfined() {
        return threadConfined;
    }

    /** The turn this scope runs in the session of {@code gate}, or null (also once it closed or ended). */
    SendGate.RunningTurn running(SendGate gate) {
        SendGate.RunningTurn turn = last(gate);
        return turn == null || turn.over ? null : turn;
    }

    /** The turn this scope last started in the session of {@code gate}, running or not, or null. */
    SendGate.RunningTurn last(SendGate gate) {
        return threadTurns != null ? threadTurns.get(gate) : turns.get(gate);
    }

    /** {@code turn}, just admitted, is this scope's turn in its session from now on (a user message). */
    void started(SendGate.RunningTurn turn) {
        if (threadTurns != null) {
            threadTurns.put(turn);
        } else {
            turns.put(turn.gate, turn);
        }
        LAST_TURNS.get().put(turn);
        question = null;
    }

    /**
     * The turn this thread last started in the session, if no answer can come to it any more: a
     * thread runs one blocking request at a time, so when it starts a new turn its earlier one is
     * over — unless that one belongs to a request still running elsewhere (a stream the listeners
     * follow). Null when there is none.
     */
    SendGate.RunningTurn endedBy(SendGate gate) {
        SendGate.RunningTurn turn = LAST_TURNS.get().get(gate);
        if (turn == null) {
            return null;
        }
        RequestScope scope = turn.owner;
        boolean over = scope == this || scope.threadConfined || scope.finished || scope.requestId != null;
        return over ? turn : null;
    }

    /** The memory id of the request the listeners follow, for token accounting; null when none. */
    static Object currentMemoryId() {
        RequestScope scope = active();
        return scope == null ? null : scope.memoryId;
    }

    /**
     * The user message the listeners saw this scope's request start with, before the memory has it,
     * when the request is for {@code sessionId}; null otherwise.
     */
    UserMessage pendingQuestion(String sessionId) {
        UserMessage pending = question;
        Object id = memoryId;
        return pending != null && id != null && SessionIds.of(id).equals(sessionId) ? pending : null;
    }

    /** A read of this scope waited for another request's turn in {@code gate}'s session until {@code untilNanos}. */
    void waited(SendGate gate, long untilNanos) {
        waitedGate = gate;
        waitedUntil = untilNanos;
        waitedAt = System.nanoTime();
    }

    /**
     * When this scope's request may wait in {@code gate}'s session until: the end of the wait a read
     * just went through (so a user message right after it does not wait as long again), else
     * {@code maxWait} from now.
     */
    long waitDeadline(SendGate gate, java.time.Duration maxWait) {
        long now = System.nanoTime();
        if (waitedGate == gate && now - waitedAt < WAIT_CARRIES_NANOS) {
            waitedGate = null;
            return waitedUntil;
        }
        return now + maxWait.toNanos();
    }

    /** Forgets a wait this scope's last read did on {@code gate}, as {@link #waitDeadline} would use it up. */
    void forgetWait(SendGate gate) {
        if (waitedGate == gate) {
            waitedGate = null;
        }
    }

    /** Ends every turn this scope still runs (its request completed or failed), writing the end to the log. */
    private void endRunning() {
        if (turns == null) {
            return; // a thread's own scope: never ended from outside
        }
        for (SendGate.RunningTurn turn : List.copyOf(turns.values())) {
            turns.remove(turn.gate, turn);
            if (turn.over) {
                continue;
            }
            SessionMemory memory = turn.memory();
            if (memory != null) {
                memory.endTurn(turn);
            } else {
                turn.gate.finish(turn);
            }
        }
    }

    private static String checkRequestId(String requestId) {
        if (requestId == null || requestId.isBlank() || requestId.length() > MAX_REQUEST_ID_LENGTH) {
            throw new IllegalArgumentException("request id must be non-blank and at most "
                    + MAX_REQUEST_ID_LENGTH + " characters, was " + (requestId == null ? "null" : "'" + requestId + "'"));
        }
        return requestId;
    }

    private static <T extends AiServiceEvent> AiServiceListener<T> listener(Class<T> type) {
        return new AiServiceListener<>() {
            @Override
            public Class<T> getEventClass() {
                return type;
            }

            @Override
            public void onEvent(T event) {
                follow(event);
            }

            @Override
            public String toString() {
                return "RequestScope listener for " + type.getSimpleName();
            }
        };
    }

    /**
     * Started: the request's scope is the caller's explicit one, or a new one (without a request id)
     * bound to the caller's thread until the next request starts there. Every later event binds it
     * to the thread it runs on, just before LangChain4j touches the memory or calls the model there.
     * Completed or failed: its turns still running end (an end record in the log, so other
     * processes see it too: a failed request never holds a session), and it is forgotten.
     */
    private static void follow(AiServiceEvent event) {
        InvocationContext context = event.invocationContext();
        if (context == null || context.invocationId() == null) {
            return;
        }
        UUID id = context.invocationId();
        if (event instanceof AiServiceStartedEvent) {
            Scopes scopes = SCOPES.get();
            RequestScope scope = scopes.current;
            if (scope == null) {
                scope = new RequestScope(null, false);
                scopes.bound = scope;
            }
            scope.memoryId = context.chatMemoryId();
            scope.question = ((AiServiceStartedEvent) event).userMessage();
            scope.finished = false;
            INVOCATIONS.put(id, scope);
            return;
        }
        RequestScope scope = INVOCATIONS.get(id);
        if (scope == null) {
            return;
        }
        if (event instanceof AiServiceCompletedEvent || event instanceof AiServiceErrorEvent) {
            INVOCATIONS.remove(id);
            scope.finished = true;
            scope.question = null;
            try {
                scope.endRunning();
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(RequestScope.class).warn("could not record the end of a request's"
                        + " turn; it ends after openTurnTimeout", e);
            }
            Scopes scopes = SCOPES.get();
            if (scopes.bound == scope) {
                scopes.bound = null;
            }
            return;
        }
        scope.memoryId = context.chatMemoryId();
        Scopes scopes = SCOPES.get();
        if (scopes.current != scope) {
            scopes.bound = scope;
        }
    }

    /**
     * Registers {@link #aiServiceListeners()} on every {@code AiServices} built while Memory Pack
     * is on the class path, so the memories tell its requests apart (a failed call ends its turn at once,
     * a stream's callbacks belong to their request) without a line in the application. LangChain4j loads
     * this class itself, through {@code ServiceLoader}, once per {@code AiServices} builder; applications
     * never call it.
     *
     * <ul>
     *   <li>Another library's {@code AiServiceListenerRegistrarFactory} on the class path keeps working:
     *       its registrar is used, with Memory Pack's listeners added. When LangChain4j finds that factory
     *       before this one, this one is not used; then register the listeners yourself
     *       ({@code .registerListeners(aiServiceListeners())}).</li>
     *   <li>Registering the listeners yourself as well is harmless: a second registration of them is
     *       ignored, so each event reaches them once.</li>
     *   <li>The system property {@value #PROPERTY}{@code =false} turns it off (LangChain4j's own registrar,
     *       or the other factory's, without Memory Pack's listeners).</li>
     * </ul>
     *
     * <p>{@link Experimental}: it rests on LangChain4j's {@code AiServiceListener} API, which LangChain4j
     * marks experimental.
     */
    @Experimental
    public static final class ListenersFactory implements AiServiceListenerRegistrarFactory {

        /** The system property that turns the automatic registration off when {@code false}. */
        public static final String PROPERTY = "memorypack.aiServiceListeners";

        /** For {@code ServiceLoader}. */
        public ListenersFactory() {
        }

        @Override
        public AiServiceListenerRegistrar get() {
            AiServiceListenerRegistrar registrar = other();
            if ("false".equalsIgnoreCase(System.getProperty(PROPERTY))) {
                return registrar;
            }
            Registrar ours = new Registrar(registrar);
            registrar.register(aiServiceListeners());
            return ours;
        }

        /** The registrar of the first other factory on the class path, else LangChain4j's own. */
        private static AiServiceListenerRegistrar other() {
            for (AiServiceListenerRegistrarFactory factory : ServiceLoader.load(AiServiceListenerRegistrarFactory.class)) {
                if (!(factory instanceof ListenersFactory)) {
                    return factory.get();
                }
            }
            return new DefaultAiServiceListenerRegistrar();
        }

        /** A registrar that has Memory Pack's listeners already and ignores them when they are registered again. */
        private static final class Registrar implements AiServiceListenerRegistrar {

            private final AiServiceListenerRegistrar delegate;

            Registrar(AiServiceListenerRegistrar delegate) {
                this.delegate = delegate;
            }

            @Override
            public <T extends AiServiceEvent> void register(AiServiceListener<T> listener) {
                if (!ours(listener)) {
                    delegate.register(listener);
                }
            }

            @Override
            public <T extends AiServiceEvent> void unregister(AiServiceListener<T> listener) {
                delegate.unregister(listener);
            }

            @Override
            public <T extends AiServiceEvent> void fireEvent(T event) {
                delegate.fireEvent(event);
            }

            @Override
            public void shouldThrowExceptionOnEventError(boolean shouldThrow) {
                delegate.shouldThrowExceptionOnEventError(shouldThrow);
            }

            private static boolean ours(AiServiceListener<?> listener) {
                for (AiServiceListener<?> registered : aiServiceListeners()) {
                    if (registered == listener) {
                        return true;
                    }
                }
                return false;
            }
        }
    }
}
