package io.github.memorypack.core;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The conversation that a contiguous run of log entries (ending with the newest) holds, as every
 * view and every fold sees it. Written once, here:
 *
 * <ul>
 *   <li>Everything up to the latest {@link Records#CLEAR clear record} is gone from the
 *       conversation (it stays in the log); a clear record a later set record names was undone (its
 *       {@code clear()} could not write the state) and clears nothing. The state's system message and summary count only when
 *       the state was written after that record; a system-message record newer than the state's
 *       wins (a crash between the append and the state update changes nothing).</li>
 *   <li>Entries a {@link Records#SET set record} names, and entries of every attempt of a request but
 *       the latest (the current thread's own attempt, when it is in that request's scope), are not
 *       part of the conversation.</li>
 *   <li>Entries the summary covers are not part of it either; records and system-message entries
 *       never are.</li>
 *   <li>A turn is a user message and what belongs to it: entries tagged with its turn id, and
 *       untagged entries up to the next user message. Tool results join the AI message that asked
 *       for them, matched by request id (by tool name without one), wherever they are in the log.
 *       Messages before the first user message are the prelude (a greeting).</li>
 *   <li>A turn is closed once its last message is an AI message without tool calls; an open turn
 *       whose newest entry is older than the open-turn timeout, or whose process the store knows has
 *       ended ({@link SessionStore#processEnded}: it crashed), is abandoned and treated as closed.
 *       A tool call without a result is in flight while it is the last message of an open turn (not
 *       shown yet), otherwise interrupted (repaired with a synthetic result).</li>
 * </ul>
 */
final class Dialogue {

    /** Text of the synthetic result that repairs an interrupted tool call. */
    static final String INTERRUPTED_TOOL_RESULT = "no result: the tool call was interrupted";

    /** What a dialogue needs to know about the moment and the request it is computed for. */
    static final class Context {
        final Instant now;
        final Duration openTurnTimeout;
        final String requestId;
        final String attemptId;
        /** The turn the calling request runs in the session, or null. */
        final String ownTurn;
        /** True for a view: other requests' running turns are hidden (a fold sees every turn). */
        final boolean forView;
        /** True if the caller runs no turn, so a new question may follow this view (AiServices adds it after reading). */
        final boolean questionPending;
        /** Tokens of that question when known (the listeners saw it), else -1. */
        final int pendingQuestionTokens;
        /** Asked whether the process that started an open turn has ended ({@link SessionStore#processEnded}); or null. */
        final SessionStore processes;

        /** A context that hides nothing: what a fold and the store's own reads use. */
        Context(Instant now, Duration openTurnTimeout, RequestScope scope, SessionStore processes) {
            this(now, openTurnTimeout, scope == null ? null : scope.requestId(), scope == null ? null : scope.attemptId(),
                    null, false, false, -1, processes);
        }

        Context(Instant now, Duration openTurnTimeout, String requestId, String attemptId, String ownTurn, boolean forView,
                boolean questionPending, int pendingQuestionTokens, SessionStore processes) {
            this.processes = processes;
            this.now = now;
            this.openTurnTimeout = openTurnTimeout;
            this.requestId = requestId;
            this.attemptId = attemptId;
            this.ownTurn = ownTurn;
            this.forView = forView;
            this.questionPending = questionPending;
            this.pendingQuestionTokens = pendingQuestionTokens;
        }
    }

    final SystemMessage system;
    final Summary summary;
    final long clearedAt;
    /** The messages before the first user message (a greeting), as a turn without a user message; or null. */
    DialogueTurn prelude;
    final List<DialogueTurn> turns = new ArrayList<>();
    /**
     * True if the entries given start at the beginning of the conversation: index 0, right after the
     * latest clear, or where the summary ends. Only then is the prelude a greeting (after a retention
     * trim the oldest retained entries are not).
     */
    final boolean reachesStart;
    /** True if nothing older than the entries given is retained (no reason to read further back). */
    final boolean fromStart;
    /** True if an entry is tagged with a turn whose user message is not among the entries. */
    boolean orphans;
    /**
     * In a view: how many running turns of other requests were left out (tagged, open, not abandoned),
     * and whether any turn was (those, and turns that started after the caller's own).
     */
    int hiddenRunning;
    boolean hiddenAny;
    /** In a view: the caller's own running turn is not among the entries given (it starts before them). */
    boolean ownMissing;
    /** True if a new question may follow the view, and its tokens when known (see {@link Context}). */
    boolean questionPending;
    int pendingQuestionTokens = -1;
    /** The newest entry given, or null. */
    final Entry last;
    /** Index of the oldest entry given, or -1. */
    final long startIndex;

    private Dialogue(SystemMessage system, Summary summary, long clearedAt, boolean reachesStart, boolean fromStart,
                     Entry last, long startIndex) {
        this.system = system;
        this.summary = summary;
        this.clearedAt = clearedAt;
        this.reachesStart = reachesStart;
        this.fromStart = fromStart || reachesStart;
        this.last = last;
        this.startIndex = startIndex;
    }

    /**
     * What the log says about which entries still count: the latest clear, the system message and
     * summary as of then, set records and the latest attempt of every request. Computed once per
     * read; {@link #counts} applies it to one entry.
     */
    private static final class Scope {
        long clearedAt;
        SystemMessage system;
        Summary summary;
        List<long[]> superseded;
        Map<String, String> latestAttempt;

        Scope(SessionState state, List<Entry> entries, String requestId, String attemptId) {
            // 1. the latest clear, and what the state says as of when it was written (a clear record a
            // later set record supersedes, as a clear() whose state write failed leaves it, clears nothing)
            long stateClearedAt = Records.longAttribute(state, Records.CLEARED_AT, -1);
            clearedAt = stateClearedAt;
            List<long[]> undone = null;
            for (int i = entries.size() - 1; i >= 0; i--) {
                Entry entry = entries.get(i);
                if (entry.index() <= clearedAt) {
                    break;
                }
                String kind = Records.kind(entry.message());
                if (Records.SET.equals(kind)) {
                    if (undone == null) {
                        undone = new ArrayList<>();
                    }
                    undone.addAll(Records.superseded(entry.message()));
                } else if (Records.CLEAR.equals(kind) && !isSuperseded(entry.index(), undone)) {
                    clearedAt = entry.index();
                    break;
                }
            }
            boolean stale = clearedAt > stateClearedAt;
            system = stale ? null : state.systemMessage().orElse(null);
            long systemIndex = stale ? clearedAt
                    : Math.max(clearedAt, Records.longAttribute(state, Records.SYSTEM_INDEX, -1));
            long clearIndex = clearedAt;
            summary = stale ? null : state.summary().filter(s -> s.coveredUntil() > clearIndex).orElse(null);

            // 2. what is superseded: set records, newest first (a set record another one superseded, as an
            // undone set() is, supersedes nothing)
            for (int i = entries.size() - 1; i >= 0; i--) {
                Entry entry = entries.get(i);
                if (entry.index() <= clearedAt) {
                    break;
                }
                if (Records.SET.equals(Records.kind(entry.message())) && !isSuperseded(entry.index(), superseded)) {
                    if (superseded == null) {
                        superseded = new ArrayList<>();
                    }
                    superseded.addAll(Records.superseded(entry.message()));
                }
            }
            // 3. the system message as of now, and every attempt of a request but the latest
            Map<String, Map<String, Long>> attemptStarts = null;
            for (Entry entry : entries) {
                if (entry.index() <= clearedAt) {
                    continue;
                }
                ChatMessage message = entry.message();
                if (entry.index() > systemIndex && !isSuperseded(entry.index(), superseded)) {
                    if (message instanceof SystemMessage) {
                        system = (SystemMessage) message; // a record newer than the state: it wins
                        systemIndex = entry.index();
                    } else if (Records.NO_SYSTEM.equals(Records.kind(message))) {
                        system = null; // removed by set(), newer than the state
                        systemIndex = entry.index();
                    }
                }
                String request = EntryTags.request(entry);
                if (request != null) {
                    if (attemptStarts == null) {
                        attemptStarts = new HashMap<>();
                    }
                    attemptStarts.computeIfAbsent(request, r -> new HashMap<>())
                            .putIfAbsent(String.valueOf(EntryTags.attempt(entry)), entry.index());
                }
            }
            // the latest attempt of a request is the one that started last; the caller's own, in its scope
            if (attemptStarts != null) {
                latestAttempt = new HashMap<>();
                for (Map.Entry<String, Map<String, Long>> request : attemptStarts.entrySet()) {
                    String latest = null;
                    long start = -1;
                    for (Map.Entry<String, Long> attempt : request.getValue().entrySet()) {
                        if (attempt.getValue() > start) {
                            start = attempt.getValue();
                            latest = attempt.getKey();
                        }
                    }
                    latestAttempt.put(request.getKey(), latest);
                }
            }
            if (requestId != null) {
                if (latestAttempt == null) {
                    latestAttempt = new HashMap<>();
                }
                latestAttempt.put(requestId, attemptId);
            }
        }

        /** True if the entry is a message of the conversation (the summary aside): not cleared, replaced, retried or a record. */
        boolean counts(Entry entry) {
            ChatMessage message = entry.message();
            if (entry.index() <= clearedAt || message instanceof SystemMessage || Records.kind(message) != null
                    || isSuperseded(entry.index(), superseded)) {
                return false;
            }
            String request = EntryTags.request(entry);
            return request == null || latestAttempt == null
                    || latestAttempt.get(request).equals(String.valueOf(EntryTags.attempt(entry)));
        }
    }

    /**
     * The entries of the conversation as of now, oldest first: what follows the latest clear, not
     * replaced by a set, of the latest attempt of each request, no records; system-message entries
     * after the clear are kept (they record the system message as it changed). Entries a summary
     * covers are included.
     */
    static List<Entry> live(SessionState state, List<Entry> entries) {
        Scope scope = new Scope(state, entries, null, null);
        List<Entry> out = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            if (scope.counts(entry)
                    || (entry.message() instanceof SystemMessage && entry.index() > scope.clearedAt)) {
                out.add(entry);
            }
        }
        return out;
    }

    /**
     * The conversation as LangChain4j expects a {@code ChatMemoryStore} to hold it: the system message
     * as of now first (when there is one), then the messages of {@link #live} without the system-message
     * entries — no records, no superseded attempts or replaced messages, nothing before the latest clear.
     */
    static List<ChatMessage> conversation(SessionState state, List<Entry> entries) {
        Scope scope = new Scope(state, entries, null, null);
        List<ChatMessage> out = new ArrayList<>(entries.size() + 1);
        if (scope.system != null) {
            out.add(scope.system);
        }
        for (Entry entry : entries) {
            if (scope.counts(entry)) {
                out.add(entry.message());
            }
        }
        return out;
    }

    /**
     * @param fromStart true if {@code entries} begin with the oldest retained entry of the log
     */
    static Dialogue of(SessionState state, List<Entry> entries, boolean fromStart, Context context) {
        Scope scope = new Scope(state, entries, context.requestId, context.attemptId);
        long clearedAt = scope.clearedAt;
        Summary summary = scope.summary;
        long covered = summary == null ? 0 : summary.coveredUntil();

        Entry last = entries.isEmpty() ? null : entries.get(entries.size() - 1);
        boolean reachesStart = !entries.isEmpty() && entries.get(0).index() <= Math.max(clearedAt + 1, covered);
        Dialogue dialogue = new Dialogue(scope.system, summary, clearedAt, reachesStart, fromStart, last,
                entries.isEmpty() ? -1 : entries.get(0).index());

        // 4. turns
        Map<String, DialogueTurn> byId = null;
        Map<String, ArrayDeque<DialogueTurn.Unit>> waiting = null;
        List<String> endRecords = null;
        DialogueTurn current = null;
        for (Entry entry : entries) {
            long index = entry.index();
            ChatMessage message = entry.message();
            if (index > clearedAt && Records.END.equals(Records.kind(message))) {
                if (endRecords == null) {
                    endRecords = new ArrayList<>(1);
                }
                endRecords.add(Records.endedTurn(message)); // its request ended without an answer
                continue;
            }
            if (index < covered || !scope.counts(entry)) {
                continue;
            }
            String turnId = EntryTags.turn(entry);
            if (message instanceof UserMessage) {
                String after = entry.metadata().get(EntryTags.AFTER);
                DialogueTurn ended = after == null || byId == null ? null : byId.get(after);
                if (ended != null) {
                    ended.ended = true; // its thread moved on to a new request: it will get no answer
                }
                current = new DialogueTurn(entry, turnId, entry);
                dialogue.turns.add(current);
                if (turnId != null) {
                    if (byId == null) {
                        byId = new HashMap<>();
                    }
                    byId.put(turnId, current);
                }
                continue;
            }
            DialogueTurn target = current;
            if (turnId != null) {
                DialogueTurn tagged = byId == null ? null : byId.get(turnId);
                if (tagged != null) {
                    target = tagged;
                } else if (dialogue.fromStart) {
                    // the entries reach back to the conversation's start and its turn's question is not among
                    // them: the turn was cleared (a clear() while it ran), folded or superseded, and so is the
                    // rest of it; shown in the turn before it, it would answer another turn's question
                    continue;
                } else {
                    dialogue.orphans = true;
                }
            }
            if (message instanceof ToolExecutionResultMessage) {
                ToolExecutionResultMessage result = (ToolExecutionResultMessage) message;
                ArrayDeque<DialogueTurn.Unit> queue = waiting == null ? null : waiting.get(key(result.id(), result.toolName()));
                DialogueTurn.Unit unit = queue == null ? null : queue.pollFirst();
                if (unit != null) {
                    unit.answer(key(result.id(), result.toolName()), entry);
                    if (unit.turn != null) {
                        unit.turn.touch(entry);
                    }
                }
                continue; // a result matching no call is an orphan: not part of the conversation
            }
            Object slot = entry;
            if (message instanceof AiMessage && ((AiMessage) message).hasToolExecutionRequests()) {
                DialogueTurn.Unit unit = new DialogueTurn.Unit(entry);
                for (ToolExecutionRequest request1 : ((AiMessage) message).toolExecutionRequests()) {
                    String key = key(request1.id(), request1.name());
                    unit.pending.add(new DialogueTurn.Pending(key, request1));
                    if (waiting == null) {
                        waiting = new HashMap<>();
                    }
                    waiting.computeIfAbsent(key, k -> new ArrayDeque<>()).add(unit);
                }
                slot = unit;
            }
            if (target == null) {
                if (dialogue.prelude == null) {
                    dialogue.prelude = new DialogueTurn(null, null, entry);
                }
                target = dialogue.prelude;
            }
            if (slot instanceof DialogueTurn.Unit) {
                ((DialogueTurn.Unit) slot).turn = target;
            }
            target.add(slot, entry);
        }
        if (endRecords != null && byId != null) {
            for (String turn : endRecords) {
                DialogueTurn ended = byId.get(turn);
                if (ended != null) {
                    ended.ended = true;
                }
            }
        }
        Instant abandonBefore = context.now.minus(context.openTurnTimeout);
        for (DialogueTurn turn : dialogue.turns) {
            turn.settle(abandonBefore, context.processes);
        }
        if (dialogue.prelude != null) {
            dialogue.prelude.settle(abandonBefore, null);
            dialogue.prelude.closed = true; // nothing waits for an answer before the first question
        }
        if (context.forView) {
            dialogue.hideOtherRequests(context);
        }
        return dialogue;
    }

    /**
     * What a view of the calling request leaves out: every running turn of another request (tagged
     * with a turn id, open, not abandoned; an untagged open turn, say an imported question, is nobody's
     * request and stays), and, when the caller runs a turn of its own, every turn that started after
     * it. So the caller's own turn is the last one shown, and no request's view holds, or ends with,
     * another request's running turn.
     */
    private void hideOtherRequests(Context context) {
        questionPending = context.questionPending;
        pendingQuestionTokens = context.pendingQuestionTokens;
        int own = -1;
        if (context.ownTurn != null) {
            for (int t = turns.size() - 1; t >= 0; t--) {
                if (context.ownTurn.equals(turns.get(t).id)) {
                    own = t;
                    break;
                }
            }
            ownMissing = own < 0 && !fromStart;
        }
        boolean ownRunning = own >= 0 && !turns.get(own).done();
        List<DialogueTurn> shown = null;
        for (int t = 0; t < turns.size(); t++) {
            DialogueTurn turn = turns.get(t);
            boolean running = turn.id != null && !turn.done();
            boolean hide = ownRunning ? t > own || (running && t != own) : running && t != own;
            if (hide) {
                if (shown == null) {
                    shown = new ArrayList<>(turns.subList(0, t));
                }
                hiddenAny = true;
                if (running) {
                    hiddenRunning++;
                }
            } else if (shown != null) {
                shown.add(turn);
            }
        }
        if (shown != null) {
            turns.clear();
            turns.addAll(shown);
        }
    }

    private static boolean isSuperseded(long index, List<long[]> superseded) {
        if (superseded == null) {
            return false;
        }
        for (long[] range : superseded) {
            if (index >= range[0] && index <= range[1]) {
                return true;
            }
        }
        return false;
    }

    /** Where the part of the log the summary does not cover starts: after it and after the latest clear. */
    static long unsummarizedStart(SessionState state) {
        long cleared = Records.longAttribute(state, Records.CLEARED_AT, -1);
        long covered = state.summary().map(Summary::coveredUntil).orElse(0L);
        return Math.max(covered, cleared + 1);
    }

    static String key(String id, String toolName) {
        return id != null ? "id:" + id : "name:" + toolName;
    }

    /**
     * Where a fold may end after the first {@code k} turns: the log index from which nothing belongs
     * to those turns, or -1 when a later turn has entries before that point (the cut would split it).
     */
    long cutAfter(int k) {
        if (k == 0) {
            return -1;
        }
        long end = -1;
        for (int t = 0; t < k; t++) {
            end = Math.max(end, turns.get(t).lastIndex);
        }
        if (prelude != null) {
            end = Math.max(end, prelude.lastIndex);
        }
        if (k < turns.size()) {
            long next = turns.get(k).firstIndex;
            return next > end ? next : -1;
        }
        return last == null ? end + 1 : last.index() + 1;
    }
}
