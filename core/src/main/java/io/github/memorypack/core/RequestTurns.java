package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which turn of a session the calling request runs, for one memory call: the request is the
 * explicit or listener-bound {@link RequestScope}, or else the calling thread (a blocking
 * {@code AiServices} call runs on one thread). A thread of no request (LangChain4j's streaming
 * callbacks without the listeners) adds to, and reads as, the one turn that runs on the session in
 * this process ({@link SendGate#attribute}).
 *
 * <p>For an append it tags each message with its turn, request and attempt, admits a new turn
 * through the session's {@link SendGate} (waiting or refusing as {@link ConcurrentSends} says, reading
 * the log for turns of other processes), and once the append is stored, closes the turns an answer
 * closed; for a view it says whose running turn the view keeps ({@link #context}). Not thread-safe:
 * one instance per call.
 */
final class RequestTurns {

    private static final Logger LOG = LoggerFactory.getLogger(RequestTurns.class);
    private static final AtomicBoolean WARNED_UNSCOPED = new AtomicBoolean();
    /** How many entries a look for running turns in the log reads first, and at most. */
    private static final int FIRST_LOOK = 16;
    private static final int MAX_LOOK = 4_096;

    private final SessionMemory memory;
    final RequestScope scope;
    final SendGate gate;
    private final boolean unscoped;
    private SendGate.RunningTurn own;
    private boolean ownKnown;
    private long now = Long.MIN_VALUE;
    private boolean attributed;
    // an answer closes the caller's own turn without the clock having been read for it (see entry)
    private boolean untimedClose;
    // what this call's append starts and closes: one turn each, nearly always (a list only for more)
    private SendGate.RunningTurn started;
    private List<SendGate.RunningTurn> moreStarted;
    private SendGate.RunningTurn closing;
    private List<SendGate.RunningTurn> moreClosing;

    private RequestTurns(SessionMemory memory) {
        this.memory = memory;
        this.scope = RequestScope.activeOrThread();
        this.unscoped = scope.threadConfined();
        this.gate = memory.gate();
    }

    /** The memory clock's time of this call, read once. */
    private long now() {
        if (now == Long.MIN_VALUE) {
            now = memory.clock().millis();
        }
        return now;
    }

    /** The caller of the current memory call. */
    static RequestTurns of(SessionMemory memory) {
        return new RequestTurns(memory);
    }

    /**
     * The turn the calling request runs in the session, or null: the scope's, while it runs (a thread's
     * own turn stops being the thread's once other threads carry it on: a stream), else, for a thread of
     * no request, the one running turn it has added to before.
     */
    SendGate.RunningTurn own() {
        if (!ownKnown) {
            ownKnown = true;
            long timeout = memory.openTurnTimeoutMillis();
            SendGate.RunningTurn turn = scope.running(gate);
            if (turn != null && turn.live(now(), timeout) && turn.ownedBy(scope)) {
                own = turn;
            } else if (unscoped && !gate.idle()) {
                own = gate.helped(Thread.currentThread(), now(), timeout);
                attributed = own != null;
            }
        }
        return own;
    }

    /** The request id the caller's views and appends are of: its own turn's, else its scope's. */
    String requestId() {
        SendGate.RunningTurn turn = own();
        return turn != null ? turn.requestId : scope.requestId();
    }

    private String attemptId() {
        SendGate.RunningTurn turn = own();
        return turn != null ? turn.attemptId : scope.attemptId();
    }

    /** What a view for this caller shows: closed turns and its own running turn (see {@link Dialogue}). */
    Dialogue.Context context() {
        SendGate.RunningTurn turn = own();
        int pendingTokens = -1;
        if (turn == null) {
            UserMessage pending = scope.pendingQuestion(memory.sessionId());
            if (pending != null) {
                pendingTokens = memory.rules().tokenizer().estimateTokenCountInMessage(pending);
            }
        }
        return new Dialogue.Context(memory.clock().instant(), memory.openTurnTimeout(), requestId(), attemptId(),
                turn == null ? null : turn.turn, true, turn == null, pendingTokens, memory.store());
    }

    // ---------------------------------------------------------------- appends

    /** The entry for {@code message}, tagged; a user message that starts a request is admitted first. */
    NewEntry entry(ChatMessage message, int tokens) {
        if (message instanceof UserMessage) {
            SendGate.RunningTurn previous = own();
            if (previous != null && scope.threadConfined() && previous.moved()) {
                // a stream this thread started still runs on LangChain4j's callback threads (they added to
                // it): this question is another request, admitted as the setting says, not a new turn of it
                previous = null;
            }
            SendGate.RunningTurn last = scope.endedBy(gate);
            String turnId = EntryTags.newId();
            SendGate.RunningTurn turn = admit(turnId, previous == null);
            if (previous != null) {
                closing(previous); // a new question of the same request ends its earlier turn
            }
            own = turn;
            attributed = false;
            memory.tagged();
            // the thread's earlier turn gets no answer any more, unless other threads carry it on (a stream)
            String after = last != null && !last.over && (last == previous || !last.moved()) ? last.turn : null;
            return NewEntry.of(message, tokens, EntryTags.tags(after, turnId, scope.requestId(), scope.attemptId(),
                    memory.store().processId()));
        }
        boolean answer = message instanceof AiMessage && !((AiMessage) message).hasToolExecutionRequests();
        if (answer && !ownKnown) {
            SendGate.RunningTurn candidate = scope.running(gate);
            if (candidate != null && candidate.ownedBy(scope) && (!unscoped || gate.runsOnly(candidate))) {
                // the caller's answer to its own turn closes that turn whether or not it timed out: live, it
                // is the caller's own; timed out, it is the caller's last turn (below), and no other turn
                // runs here that a thread of no request could be helping. So no clock read: a closed turn's
                // time is never read (after a failed append, failed() sets it)
                ownKnown = true;
                own = candidate;
                closing(candidate);
                untimedClose = true;
                return NewEntry.of(message, tokens, EntryTags.tags(null, candidate.turn, candidate.requestId,
                        candidate.attemptId));
            }
        }
        SendGate.RunningTurn turn = own();
        SendGate.RunningTurn last = turn == null && !(message instanceof SystemMessage) ? scope.last(gate) : null;
        if (last != null && last.ownedBy(scope)) {
            // more of the caller's own turn after its answer: it belongs there (and runs again if it awaits one)
            turn = last;
            own = last;
            if (last.over && !answer && !(message instanceof dev.langchain4j.data.message.ToolExecutionResultMessage)) {
                gate.reopen(last, now());
            }
        } else if (turn == null && unscoped && !(message instanceof SystemMessage)) {
            turn = gate.idle() ? null : gate.attribute(Thread.currentThread(), now(), memory.openTurnTimeoutMillis(),
                    message.type().toString().toLowerCase(java.util.Locale.ROOT) + " message");
            if (turn != null) {
                own = turn;
                attributed = true;
            } else if (memory.wasTagged() && WARNED_UNSCOPED.compareAndSet(false, true)) {
                LOG.warn("A {} was added to chat memory {} from a thread that belongs to no request while no turn"
                        + " runs on the session in this process. It is kept, but it is not tied to a request: a retry"
                        + " may show it twice. Register RequestScope.aiServiceListeners() on AiServices to carry"
                        + " requests across threads. (Logged once.)", message.type(), memory.sessionId());
            }
        }
        if (turn != null) {
            turn.lastMillis = now();
            if (answer) {
                closing(turn);
            }
        }
        return NewEntry.of(message, tokens, EntryTags.tags(null, turn == null ? null : turn.turn,
                turn == null ? scope.requestId() : turn.requestId, turn == null ? scope.attemptId() : turn.attemptId));
    }

    /** The idempotency key of this call's append: its request's next key (the owner's, for an attributed add). */
    String key() {
        return attributed && own != null ? own.owner.nextKey(memory.sessionId()) : scope.nextKey(memory.sessionId());
    }

    /** The append is stored: the turns it closed (or ended with a new question) stop running. */
    void stored() {
        finish(closing, moreClosing);
    }

    /** The append failed: the turns it started never ran; the ones it would have closed had a message now. */
    void failed() {
        if (untimedClose) {
            closing.lastMillis = now();
        }
        finish(started, moreStarted);
    }

    private void finish(SendGate.RunningTurn first, List<SendGate.RunningTurn> more) {
        if (first != null) {
            gate.finish(first);
        }
        if (more != null) {
            for (SendGate.RunningTurn turn : more) {
                gate.finish(turn);
            }
        }
    }

    private void closing(SendGate.RunningTurn turn) {
        if (closing == null) {
            closing = turn;
        } else {
            if (moreClosing == null) {
                moreClosing = new ArrayList<>(1);
            }
            moreClosing.add(turn);
        }
    }

    /**
     * Registers the new turn {@code turnId}; when it starts a request ({@code start}), first as the
     * setting says: {@code queue} waits (the log too, for other processes' turns), {@code refuse}
     * throws, {@code branch} goes ahead.
     */
    private SendGate.RunningTurn admit(String turnId, boolean start) {
        ConcurrentSends sends = memory.concurrentSends();
        boolean check = start && sends.mode() != ConcurrentSends.Mode.BRANCH;
        long deadline = SendGate.NO_DEADLINE; // the gate asks the scope only if it has to wait
        if (check && !memory.gatesInProcessOnly()) {
            deadline = scope.waitDeadline(gate, sends.maxWait());
            awaitLog(sends, deadline);
        }
        SendGate.RunningTurn turn = gate.admit(scope, turnId, memory, sends, check, deadline, now());
        scope.started(turn);
        if (started == null) {
            started = turn;
        } else {
            if (moreStarted == null) {
                moreStarted = new ArrayList<>(1);
            }
            moreStarted.add(turn);
        }
        return turn;
    }

    /** Waits while the log shows another request's running turn (one of another process, say). */
    private void awaitLog(ConcurrentSends sends, long deadline) {
        long pause = SendGate.FIRST_PAUSE_NANOS;
        while (true) {
            String running = runningInLog();
            if (running == null) {
                return;
            }
            long remaining = deadline - System.nanoTime();
            if (sends.mode() == ConcurrentSends.Mode.REFUSE || remaining <= 0) {
                throw SendGate.busy(memory.sessionId(), sends, running);
            }
            gate.pause(Math.min(pause, remaining));
            pause = Math.min(pause * 2, SendGate.MAX_PAUSE_NANOS);
        }
    }

    /** A description of a running turn of another request in the tail of the log, or null. */
    private String runningInLog() {
        SessionState state = memory.state();
        Dialogue.Context context = new Dialogue.Context(memory.clock().instant(), memory.openTurnTimeout(),
                scope.requestId(), scope.attemptId(), null, false, false, -1, memory.store());
        int count = FIRST_LOOK;
        while (true) {
            List<Entry> entries = memory.store().readLast(memory.sessionId(), count);
            boolean fromStart = entries.size() < count;
            Dialogue dialogue = Dialogue.of(state, entries, fromStart, context);
            for (DialogueTurn turn : dialogue.turns) {
                if (turn.id != null && !turn.done()) {
                    return "turn " + turn.id + (EntryTags.request(turn.user) == null ? ""
                            : " of request " + EntryTags.request(turn.user)) + " (its question at log index "
                            + turn.user.index() + ")";
                }
            }
            if (!dialogue.orphans || fromStart || count >= MAX_LOOK) {
                return null;
            }
            count *= 2;
        }
    }
}
