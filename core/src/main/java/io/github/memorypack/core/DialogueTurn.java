package io.github.memorypack.core;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A user message and the messages that belong to it (the prelude has no user message). Abandoned:
 * open, and either its newest entry is older than the open-turn timeout or the thread that
 * started it has started a newer turn since.
 */
final class DialogueTurn {
    final Entry user;
    final String id;
    final List<Object> slots = new ArrayList<>(4); // Entry or Unit, in log order
    final long firstIndex;
    long lastIndex;
    Instant lastTime;
    boolean closed;
    boolean abandoned;
    boolean ended;
    long tokens = -1;

    DialogueTurn(Entry user, String id, Entry first) {
        this.user = user;
        this.id = id;
        this.firstIndex = first.index();
        this.lastIndex = first.index();
        this.lastTime = first.timestamp();
    }

    void add(Object slot, Entry entry) {
        slots.add(slot);
        touch(entry);
    }

    void touch(Entry entry) {
        lastIndex = Math.max(lastIndex, entry.index());
        if (entry.timestamp().isAfter(lastTime)) {
            lastTime = entry.timestamp();
        }
    }

    void settle(Instant abandonBefore, SessionStore processes) {
        Object lastSlot = slots.isEmpty() ? null : slots.get(slots.size() - 1);
        closed = lastSlot instanceof Entry && ((Entry) lastSlot).message() instanceof AiMessage
                && !((AiMessage) ((Entry) lastSlot).message()).hasToolExecutionRequests();
        abandoned = !closed && (ended || lastTime.isBefore(abandonBefore) || processEnded(processes));
    }

    /** True if the store knows that the process that started this turn has ended (it crashed, say). */
    private boolean processEnded(SessionStore processes) {
        if (processes == null || user == null) {
            return false;
        }
        String process = EntryTags.process(user);
        return process != null && processes.processEnded(process);
    }

    /** Closed or abandoned: a view may cut it, a fold may take it, cost rules apply to it. */
    boolean done() {
        return closed || abandoned;
    }

    /** The last slot when it is a tool call still waiting for results (not shown yet), else null. */
    Unit inFlight() {
        if (done() || slots.isEmpty()) {
            return null;
        }
        Object lastSlot = slots.get(slots.size() - 1);
        return lastSlot instanceof Unit && !((Unit) lastSlot).pending.isEmpty() ? (Unit) lastSlot : null;
    }

    /** The entries of this turn in log order (results after their call), user message first. */
    List<Entry> entries() {
        List<Entry> out = new ArrayList<>(slots.size() + 1);
        if (user != null) {
            out.add(user);
        }
        for (Object slot : slots) {
            if (slot instanceof Entry) {
                out.add((Entry) slot);
            } else {
                out.add(((Unit) slot).head);
                out.addAll(((Unit) slot).results);
            }
        }
        return out;
    }

    /** The sum of the stored token counts of the turn's entries ({@code counter} for those without one). */
    long storedTokens(java.util.function.ToIntFunction<Entry> counter) {
        if (tokens < 0) {
            long sum = 0;
            for (Entry entry : entries()) {
                sum += counter.applyAsInt(entry);
            }
            tokens = sum;
        }
        return tokens;
    }

    /** A tool call of a {@link Unit} still waiting for its result: its key and request. */
    static final class Pending {
        final String key;
        final ToolExecutionRequest request;

        Pending(String key, ToolExecutionRequest request) {
            this.key = key;
            this.request = request;
        }
    }

    /** An AI message with tool requests and the results matched to it, in log order. */
    static final class Unit {
        final Entry head;
        final List<Entry> results = new ArrayList<>(1);
        final List<Pending> pending = new ArrayList<>(1);
        DialogueTurn turn;

        Unit(Entry head) {
            this.head = head;
        }

        void answer(String key, Entry result) {
            results.add(result);
            for (int i = 0; i < pending.size(); i++) {
                if (pending.get(i).key.equals(key)) {
                    pending.remove(i);
                    return;
                }
            }
        }

        int size() {
            return 1 + results.size() + pending.size();
        }
    }
}
