package io.github.memorypack.core;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The concurrent-send policy ({@link ConcurrentSends}) of one session in this JVM: the turns that
 * run here, whose they are, and the waiting and refusing when a request starts while another one's
 * turn runs. One gate per store and session, shared by every memory on them ({@link SendGates});
 * what other processes run is read from the log by the caller ({@link SessionMemory}).
 *
 * <p>A turn runs from the moment its request is admitted (just before its user message is
 * appended) until an AI message without tool calls closes it, its owner starts another turn, its
 * request ends (the listeners), or it has had no message for the open-turn timeout. Thread-safe:
 * guarded by this object's monitor, on which waiters wait.
 */
final class SendGate {

    /** The first and the longest pause between two reads of the log while waiting. */
    static final long FIRST_PAUSE_NANOS = Duration.ofMillis(5).toNanos();
    static final long MAX_PAUSE_NANOS = Duration.ofMillis(200).toNanos();
    /** For {@link #admit}: no deadline known yet. */
    static final long NO_DEADLINE = Long.MIN_VALUE;

    final String sessionId;
    // running turns, oldest first, each once; guarded by this. A list, not a map by turn id: it holds one
    // turn nearly always, and a turn is found by identity (its id is never hashed)
    private final List<RunningTurn> running = new ArrayList<>(4);
    // running.size(), written under the lock after every change, read without it (see idle())
    private volatile int runningSize;
    private int waiters;

    SendGate(String sessionId) {
        this.sessionId = sessionId;
    }

    /**
     * A turn that runs in this JVM: its id, the request scope that owns it, the request and attempt
     * it belongs to, the threads that added to it without a scope of their own (LangChain4j's
     * streaming callbacks), when it last had a message, and the memory that can write its end.
     */
    static final class RunningTurn {
        final SendGate gate;
        final String turn;
        final RequestScope owner;
        final String requestId;
        final String attemptId;
        // held weakly (a turn a failed request left running must not keep its store reachable), and only
        // for the scopes the listeners end (a thread's own turns are never ended from outside)
        final WeakReference<SessionMemory> memory;
        volatile long lastMillis;
        volatile boolean over;
        // whether it is in its gate's list of running turns: written under the gate's lock before the
        // volatile runningSize, and read after reading that (runsOnly), so no volatile of its own
        boolean listed;
        // the threads that added to it without a scope; made when the first one does (guarded by the gate)
        private volatile Set<Thread> helpers;

        RunningTurn(SendGate gate, String turn, RequestScope owner, SessionMemory memory, long nowMillis) {
            this.gate = gate;
            this.turn = turn;
            this.owner = owner;
            this.requestId = owner.requestId();
            this.attemptId = owner.attemptId();
            this.memory = owner.threadConfined() ? null : new WeakReference<>(memory);
            this.lastMillis = nowMillis;
        }

        /** The memory that can write this turn's end, or null. */
        SessionMemory memory() {
            return memory == null ? null : memory.get();
        }

        /** True if it has not closed or ended and had a message within {@code timeoutMillis}. */
        boolean live(long nowMillis, long timeoutMillis) {
            return !over && nowMillis - lastMillis <= timeoutMillis;
        }

        /** True if threads other than its owner's added to it (its request went on to callback threads). */
        boolean moved() {
            return helpers != null;
        }

        boolean helpedBy(Thread thread) {
            Set<Thread> threads = helpers;
            return threads != null && threads.contains(thread);
        }

        /** True if {@code scope} is its owner or another attempt of the same request. */
        boolean ownedBy(RequestScope scope) {
            return owner == scope || (requestId != null && requestId.equals(scope.requestId()));
        }

        @Override
        public String toString() {
            return "turn " + turn + (requestId == null ? "" : " of request " + requestId);
        }
    }

    /**
     * Admits a request of {@code scope} whose user message is about to be appended, and registers its
     * new turn {@code turnId}: under {@code branch} at once; under {@code refuse} unless another
     * request's turn runs here; under {@code queue} once no other request's turn runs here, waiting
     * until {@code deadlineNanos} (of {@link System#nanoTime()}; {@link #NO_DEADLINE}: the scope's
     * {@link RequestScope#waitDeadline}, asked only when a turn runs here, so an idle session's admission
     * reads no clock for it); {@code nowMillis} is the memory clock's time of the call. A turn of an
     * earlier attempt of the same request stops running (the new attempt supersedes it).
     *
     * @throws SessionBusyException if another request's turn runs and the setting does not let this one in
     */
    synchronized RunningTurn admit(RequestScope scope, String turnId, SessionMemory memory, ConcurrentSends sends,
                                   boolean checkOthers, long deadlineNanos, long nowMillis) {
        long timeout = memory.openTurnTimeoutMillis();
        boolean mayWait = checkOthers && sends.mode() != ConcurrentSends.Mode.BRANCH;
        if (mayWait && deadlineNanos == NO_DEADLINE && running.isEmpty()) {
            scope.forgetWait(this); // what waitDeadline would have used up
        }
        if (mayWait && !running.isEmpty()) {
            if (deadlineNanos == NO_DEADLINE) {
                deadlineNanos = scope.waitDeadline(this, sends.maxWait());
            }
            boolean waited = false;
            while (true) {
                RunningTurn other = otherThan(scope, waited ? memory.clock().millis() : nowMillis, timeout);
                if (other == null) {
                    break;
                }
                long remaining = deadlineNanos - System.nanoTime();
                if (sends.mode() == ConcurrentSends.Mode.REFUSE || remaining <= 0) {
                    throw busy(sends, other, memory.clock().millis());
                }
                pause(Math.min(remaining, MAX_PAUSE_NANOS));
                waited = true;
            }
        }
        if (scope.requestId() != null && !running.isEmpty()) {
            // an earlier attempt of the same request is superseded by this one: it no longer runs
            List<RunningTurn> superseded = null;
            for (RunningTurn turn : running) {
                if (scope.requestId().equals(turn.requestId)) {
                    if (superseded == null) {
                        superseded = new ArrayList<>(1);
                    }
                    superseded.add(turn);
                }
            }
            if (superseded != null) {
                for (RunningTurn turn : superseded) {
                    turn.over = true;
                    remove(turn);
                }
                runningSize = running.size();
                changed();
            }
        }
        RunningTurn turn = new RunningTurn(this, turnId, scope, memory, nowMillis);
        running.add(turn);
        turn.listed = true;
        runningSize = running.size();
        return turn;
    }

    /**
     * True if no turn runs here, read without the lock (a snapshot, as one read under the lock would
     * be): what most calls find, so they need neither the lock nor the clock.
     */
    boolean idle() {
        return runningSize == 0;
    }

    /**
     * True if {@code turn} is the one turn that runs here, read without the lock (a snapshot, like
     * {@link #idle()}): then no other turn runs that a thread could be helping.
     */
    boolean runsOnly(RunningTurn turn) {
        return runningSize == 1 && turn.listed;
    }

    /**
     * The oldest turn running here that {@code scope} does not own, or null; a thread's own turn that
     * other threads carry on (a stream the thread started, see {@link RunningTurn#moved}) counts as
     * another request's.
     */
    synchronized RunningTurn otherThan(RequestScope scope, long nowMillis, long timeoutMillis) {
        RunningTurn found = null;
        List<RunningTurn> expired = null;
        for (RunningTurn turn : running) {
            if (!turn.live(nowMillis, timeoutMillis)) {
                if (expired == null) {
                    expired = new ArrayList<>(1);
                }
                expired.add(turn);
            } else if (found == null && (!turn.ownedBy(scope) || (scope.threadConfined() && turn.moved()))) {
                // a thread's own turn that other threads carry on (a stream it started) is another request's
                found = turn;
            }
        }
        if (expired != null) {
            for (RunningTurn turn : expired) {
                remove(turn);
            }
            runningSize = running.size();
            changed();
        }
        return found;
    }

    /**
     * The turn a thread without a request scope of its own adds to (LangChain4j's streaming and async
     * callbacks without the listeners): the one live turn that runs here, which the thread then
     * helps; null when none runs.
     *
     * @throws IllegalStateException if several run: which request the message belongs to cannot be told
     */
    synchronized RunningTurn attribute(Thread thread, long nowMillis, long timeoutMillis, String what) {
        RunningTurn only = null;
        int live = 0;
        for (RunningTurn turn : running) {
            if (turn.live(nowMillis, timeoutMillis)) {
                live++;
                only = turn;
            }
        }
        if (live > 1) {
            throw new IllegalStateException("A " + what + " was added to chat memory " + sessionId + " from a thread"
                    + " that belongs to none of the " + live + " requests running on this session (LangChain4j"
                    + " streaming or an async call without RequestScope.aiServiceListeners()?): which request it"
                    + " belongs to cannot be told, so it is not stored. Register .registerListeners("
                    + "RequestScope.aiServiceListeners()) on AiServices (core registers them by itself unless"
                    + " -Dmemorypack.aiServiceListeners=false or another library's AiServiceListenerRegistrarFactory"
                    + " comes first), or use ConcurrentSends.queue() or refuse() so that one request at a time runs on"
                    + " a session.");
        }
        if (only != null) {
            if (only.helpers == null) {
                only.helpers = ConcurrentHashMap.newKeySet(2);
            }
            only.helpers.add(thread);
            only.lastMillis = nowMillis;
        }
        return only;
    }

    /** The live turn {@code thread} helps, if it helps exactly the one turn that runs here; else null. */
    synchronized RunningTurn helped(Thread thread, long nowMillis, long timeoutMillis) {
        RunningTurn only = null;
        for (RunningTurn turn : running) {
            if (turn.live(nowMillis, timeoutMillis)) {
                if (only != null) {
                    return null;
                }
                only = turn;
            }
        }
        return only != null && only.helpedBy(thread) ? only : null;
    }

    /** The turn closed or ended; waiters look again. */
    synchronized void finish(RunningTurn turn) {
        turn.over = true;
        if (remove(turn)) {
            runningSize = running.size();
            changed();
        }
    }

    /**
     * A closed turn of its owner gets another message that keeps it open (a tool call after its
     * answer): it runs again.
     */
    synchronized void reopen(RunningTurn turn, long nowMillis) {
        turn.over = false;
        turn.lastMillis = nowMillis;
        if (!running.contains(turn)) {
            running.add(turn);
            turn.listed = true;
        }
        runningSize = running.size();
    }

    /**
     * The conversation was cleared: every turn here but {@code kept} (the clearing request's own, or
     * null) asked a question the clear removed, so it holds up no other request any more; waiters look
     * again.
     */
    synchronized void clearedBut(RunningTurn kept) {
        for (int i = running.size() - 1; i >= 0; i--) {
            RunningTurn turn = running.get(i);
            if (turn != kept) {
                turn.over = true;
                turn.listed = false;
                running.remove(i);
            }
        }
        runningSize = running.size();
        changed();
    }

    /** Waits until a turn here changes or {@code nanos} pass (what a waiter does between two reads of the log). */
    synchronized void pause(long nanos) {
        if (nanos <= 0) {
            return;
        }
        waiters++;
        try {
            wait(Math.max(1, nanos / 1_000_000), (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SessionBusyException(sessionId, "interrupted while waiting for the running turn of chat memory "
                    + sessionId + " to close");
        } finally {
            waiters--;
        }
    }

    /** How many turns run here (for tests). */
    synchronized int runningCount() {
        return running.size();
    }

    /** Removes {@code turn} (by identity) if it runs here; guarded by this. */
    private boolean remove(RunningTurn turn) {
        for (int i = 0; i < running.size(); i++) {
            if (running.get(i) == turn) {
                running.remove(i);
                turn.listed = false;
                return true;
            }
        }
        return false;
    }

    private void changed() {
        if (waiters > 0) {
            notifyAll();
        }
    }

    SessionBusyException busy(ConcurrentSends sends, Object running, long nowMillis) {
        String age = running instanceof RunningTurn
                ? " for " + Duration.ofMillis(Math.max(0, nowMillis - ((RunningTurn) running).lastMillis)).toMillis()
                + " ms since its last message" : "";
        return busy(sessionId, sends, running + age);
    }

    static SessionBusyException busy(String sessionId, ConcurrentSends sends, String what) {
        String why = sends.mode() == ConcurrentSends.Mode.REFUSE
                ? "ConcurrentSends.refuse() lets one request at a time run on a session"
                : "it did not close within ConcurrentSends.queue(" + sends.maxWait() + ")";
        return new SessionBusyException(sessionId, "Chat memory " + sessionId + " is busy: another request's " + what
                + " is still running, and " + why + ". Nothing of this request was stored; try again later. (A request"
                + " that failed without RequestScope.aiServiceListeners(), which core registers on every AiServices"
                + " unless -Dmemorypack.aiServiceListeners=false, and a stream that was stopped"
                + " (streamingHandle().cancel(), which LangChain4j reports to no listener) keep their turn running"
                + " until openTurnTimeout or a clear() of the conversation.)");
    }

    @Override
    public String toString() {
        return "SendGate{" + sessionId + ", running=" + runningCount() + '}';
    }
}
