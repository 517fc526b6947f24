package io.github.memorypack.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A session as a {@link MemoryStrategy} sees it for one view or one fold: the state read for it, and
 * its turns, read from the log only when the strategy asks for them (and then once). Not thread-safe:
 * one instance per view or fold.
 */
final class StrategySession implements MemoryStrategy.Session {

    private final SessionMemory memory;
    private final SessionState state;
    private Dialogue dialogue;
    private List<MemoryStrategy.Turn> turns;
    private Instant now;

    private StrategySession(SessionMemory memory, SessionState state, Dialogue dialogue) {
        this.memory = memory;
        this.state = state;
        this.dialogue = dialogue;
    }

    /** The session for a view of the calling request: its turns are every turn after the summary, others' running turns left out. */
    static StrategySession forView(SessionMemory memory, SessionState state) {
        return new StrategySession(memory, state, null);
    }

    /** The session for a fold: the turns of {@code dialogue} (every request's). */
    static StrategySession forFold(SessionMemory memory, SessionState state, Dialogue dialogue) {
        return new StrategySession(memory, state, dialogue);
    }

    /** The dialogue the turns were read from, or null if the strategy did not read them. */
    Dialogue dialogueIfRead() {
        return dialogue;
    }

    /** The dialogue of every turn after the summary (read now if the strategy did not). */
    Dialogue dialogue() {
        if (dialogue == null) {
            // only a view's session has none yet (a fold's is given): every turn after the summary
            dialogue = memory.shared().views.dialogueFrom(memory, state, Dialogue.unsummarizedStart(state));
        }
        return dialogue;
    }

    @Override
    public Object memoryId() {
        return memory.id();
    }

    @Override
    public String sessionId() {
        return memory.sessionId();
    }

    @Override
    public SessionState state() {
        return state;
    }

    @Override
    public Optional<Summary> summary() {
        Dialogue d = dialogue != null ? dialogue
                : Dialogue.of(state, List.of(), false, memory.context(null)); // the state's, unless a clear came after it
        return Optional.ofNullable(d.summary);
    }

    @Override
    public List<MemoryStrategy.Turn> turns() {
        if (turns == null) {
            Dialogue d = dialogue();
            double factor = memory.calibrationFactor();
            List<MemoryStrategy.Turn> all = new ArrayList<>(d.turns.size() + 1);
            if (d.prelude != null) {
                all.add(new TurnOf(d.prelude, true, memory, factor));
            }
            for (DialogueTurn turn : d.turns) {
                all.add(new TurnOf(turn, false, memory, factor));
            }
            turns = Collections.unmodifiableList(all);
        }
        return turns;
    }

    @Override
    public Instant now() {
        if (now == null) {
            now = memory.clock().instant();
        }
        return now;
    }

    @Override
    public String toString() {
        return "Session{" + memory.sessionId() + '}';
    }

    /** A turn of the dialogue, as the SPI shows it. */
    private static final class TurnOf implements MemoryStrategy.Turn {
        private final DialogueTurn turn;
        private final boolean opening;
        private final SessionMemory memory;
        private final double factor;
        private List<Entry> entries;

        TurnOf(DialogueTurn turn, boolean opening, SessionMemory memory, double factor) {
            this.turn = turn;
            this.opening = opening;
            this.memory = memory;
            this.factor = factor;
        }

        @Override
        public List<Entry> entries() {
            if (entries == null) {
                entries = Collections.unmodifiableList(turn.entries());
            }
            return entries;
        }

        @Override
        public long tokens() {
            long tokens = turn.storedTokens(memory.rules()::storedTokens);
            return factor == 1.0 ? tokens : Math.round(tokens * factor);
        }

        @Override
        public boolean closed() {
            return turn.done();
        }

        @Override
        public boolean opening() {
            return opening;
        }

        @Override
        public String toString() {
            return "Turn{" + entries().size() + " entries, " + (closed() ? "closed" : "open") + (opening ? ", opening" : "")
                    + '}';
        }
    }
}
