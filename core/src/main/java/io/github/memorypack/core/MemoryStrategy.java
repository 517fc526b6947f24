package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * How much of a session a memory shows, and how much of it to fold into the summary: the one thing
 * that differs between Memory Pack's memories. A {@link MemoryOptions#memory memory} made from a
 * strategy is a LangChain4j {@link dev.langchain4j.memory.ChatMemory} over a session of a
 * {@link SessionStore}: every message is appended to the session's log, and what the memory sends
 * is a view of that log that the strategy's {@link Plan} bounds. The buffer, window, summary,
 * summary-buffer and MEMORY.md memories are each a strategy; an application's own strategy is
 * written the same way, against this interface only.
 *
 * <p><b>What the engine guarantees, whatever the plan says.</b> A strategy decides only how many
 * whole turns to show or fold; every memory keeps these rules, so a strategy cannot break them:
 * <ul>
 *   <li><b>Whole turns.</b> A view shows whole turns (a user message and everything that belongs to
 *       it); cuts fall between turns, so after the pinned messages a view starts with a user message
 *       (or with the opening, when nothing older is hidden). An AI message with tool calls is shown
 *       with exactly its results; an interrupted call is repaired with a synthetic result that is
 *       never stored; a call still running is shown once its results are in.</li>
 *   <li><b>Open turns.</b> A turn whose request still runs (no answer yet, and younger than the
 *       open-turn timeout of {@link MemoryOptions}) is never hidden, cut or folded. A request's
 *       view never holds another request's running turn ({@link ConcurrentSends}).</li>
 *   <li><b>The newest turn is always shown</b>, even when it alone passes a ceiling: the overflow
 *       is reported to the {@link MemoryListener}, never hidden.</li>
 *   <li><b>Pinned messages.</b> The application's system message is shown first and never cut or
 *       folded; the summary follows it, where {@link MemoryOptions.Builder#summaryPlacement} puts
 *       it.</li>
 *   <li><b>Round trips.</b> {@code set(messages())} with nothing changed writes nothing;
 *       {@code set} changes only what differs from the view and keeps what the view did not show;
 *       {@code clear()} starts the conversation over and keeps the earlier log. A message the view
 *       made (the summary, a preview, a {@link Plan#preface preface}, a {@link #present presented}
 *       message) maps back to its source when it comes back.</li>
 *   <li><b>Retries.</b> Only the latest attempt of a {@link RequestScope request} is shown or
 *       folded; earlier attempts stay in the log.</li>
 *   <li><b>Ceilings in tokens</b> count the whole request (pinned messages, turns, reply priming)
 *       with the counts stored with each message when it was added; with
 *       {@link MemoryOptions.Builder#calibrateWith calibration} the engine applies every token
 *       ceiling, and every {@link Turn#tokens()}, to what the provider bills.</li>
 *   <li><b>Folds</b> take only a prefix of closed turns that ends cleanly in the log, run with a
 *       timeout and with backoff after failures, and are stored with compare-and-set: a failed fold
 *       changes nothing.</li>
 *   <li><b>Nothing is deleted</b> by a plan: hidden and cut turns stay in the log (only a
 *       {@link Retention} that trims removes what no view needs).</li>
 * </ul>
 *
 * <p><b>What a strategy must do.</b> Be thread-safe and cheap: {@link #plan} runs for every view
 * (twice per {@code AiServices} call), on whatever thread asks. Never call the memory back. Read
 * {@link Session#turns()} only when the plan needs the turns: a strategy that only sets a ceiling
 * never does, and then the engine reads only the tail of the log (and extends the last view), so a
 * view costs the same however long the session is.
 *
 * <pre>{@code
 * MemoryStrategy lastTwenty = new MemoryStrategy() {
 *     public String name() { return "last-twenty"; }
 *     public Plan plan(Session session) { return Plan.showAll().maxMessages(20); }
 * };
 * ChatMemoryProvider memories = MemoryOptions.builder().chatMemoryStore(store).build().provider(lastTwenty);
 * }</pre>
 */
@Experimental
public interface MemoryStrategy {

    /**
     * A short name for listeners, metrics and accounting ({@code "window"}, {@code "summary-buffer"}).
     *
     * @return the name; not blank
     */
    String name();

    /**
     * The plan for a view of the session as it is now. Called each time a memory computes its view;
     * the engine then applies it under the rules above.
     *
     * @param session the session, read-only
     * @return the plan; not null
     */
    Plan plan(Session session);

    /**
     * How many of the oldest turns to fold into the summary now. Called after a turn closed, only by
     * a memory whose {@link MemoryOptions} have a {@link MemoryOptions.Builder#summarizer summarizer};
     * the engine folds the longest prefix of at most that many turns that is closed and ends cleanly
     * in the log (an opening turn folds only with the turn after it), and nothing when that is none.
     * Default: 0, never fold.
     *
     * @param session the session, read-only: its {@link Session#turns()} are the turns the summary
     *                does not cover yet, every request's
     * @return how many of the oldest turns to fold; 0 (or less) for none
     */
    default int turnsToFold(Session session) {
        return 0;
    }

    /**
     * True if this strategy's plans or folds weigh turns in tokens ({@link Plan#maxTokens},
     * {@link Plan#reportTokensOver}, {@link Turn#tokens()}): the engine then counts each message
     * once, when it is added, and stores the count with it. Default false (a memory whose options
     * set a tokenizer counts anyway).
     *
     * @return true if plans or folds use token counts
     */
    default boolean countsTokens() {
        return false;
    }

    /**
     * How a stored message is shown in a view (a timestamp in front, say); default: as it is. The
     * log keeps the entry unchanged, and the message shown maps back to it on {@code set}. Must be
     * cheap and depend on the entry alone; called for every entry a view shows.
     *
     * @param entry a log entry the view shows
     * @return the message to show for it; not null
     */
    default ChatMessage present(Entry entry) {
        return entry.message();
    }

    /**
     * Applies a limit decided per memory id (LangChain4j's {@code dynamicMaxMessages}) and checks it.
     *
     * @param limit    gives the limit for a memory id
     * @param memoryId the memory id
     * @param name     the limit's name, for the error
     * @return the limit for {@code memoryId}, at least 1
     * @throws IllegalArgumentException if {@code limit} gives null or a value below 1
     */
    static int limit(Function<Object, Integer> limit, Object memoryId, String name) {
        Integer value = limit.apply(memoryId);
        if (value == null || value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value + " for memory id " + memoryId);
        }
        return value;
    }

    /** What a strategy may know of a session when it plans: read-only, as of this view or fold. */
    interface Session {

        /**
         * The memory id, as the application passed it ({@code @MemoryId}).
         *
         * @return the memory id
         */
        Object memoryId();

        /**
         * The session id the memory id maps to (see {@link SessionIds}).
         *
         * @return the session id
         */
        String sessionId();

        /**
         * The session's state as this view or fold read it.
         *
         * @return the state
         */
        SessionState state();

        /**
         * The summary a view of the session shows (none once the conversation was cleared after it).
         *
         * @return the summary, if any
         */
        Optional<Summary> summary();

        /**
         * The turns a view could show, oldest first: everything after the summary and the last
         * {@code clear()}, the latest attempt of each request, whole turns. In a view, other
         * requests' running turns are left out. The first turn is an {@link Turn#opening() opening}
         * when the conversation starts with something other than a user message (a greeting).
         *
         * <p>Reading them reads that part of the log (once per view or fold): a strategy that needs
         * only a ceiling never calls this.
         *
         * @return the turns, oldest first; immutable
         */
        List<Turn> turns();

        /**
         * The time of this view or fold, from the memory's clock.
         *
         * @return now
         */
        Instant now();
    }

    /** One whole turn: a user message and everything that belongs to it (tool calls with their results). */
    interface Turn {

        /**
         * The turn's entries in the order a view shows them (a tool call's results right after it),
         * the user message first (none in an opening).
         *
         * @return the entries; immutable, not empty
         */
        List<Entry> entries();

        /**
         * The turn's size in tokens: the counts stored with its entries (counted now for an entry
         * stored without one), multiplied by the session's calibration factor when the memory
         * calibrates.
         *
         * @return the turn's tokens
         */
        long tokens();

        /**
         * True if the turn is done: answered (it ends with an AI message without tool calls), or
         * abandoned (no answer within the open-turn timeout, or its request ended without one).
         * Only done turns may be hidden, cut or folded.
         *
         * @return true if the turn is closed
         */
        boolean closed();

        /**
         * True if this is the opening of the conversation: the messages before its first user
         * message (a greeting, or a conversation imported from a system that opens with the
         * assistant). Only the first turn can be one.
         *
         * @return true for the opening
         */
        boolean opening();
    }

    /**
     * How much of a session a view shows, in whole turns: which of the oldest turns to hide, which
     * to keep whatever happens, a ceiling on the rest (messages, turns or tokens, sliding or in
     * chunks) and an optional preface. Immutable; each method returns a new plan. Build the plans a
     * strategy uses once (or once per limit value) and return the same object: a plan costs nothing
     * to apply again.
     *
     * <p>The engine applies a plan in this order: the {@linkplain #hideOldest hidden} turns are left
     * out (but never an open one); the oldest of the rest that are {@linkplain #keepOldest kept} and
     * every open turn and the newest turn are shown; then the newest other turns, newest first, while
     * the ceiling holds (all of them when there is no cutting ceiling).
     */
    final class Plan {

        private static final Plan ALL = new Plan(ViewLimit.none(), 1.0, 0, 0, null);

        // the limit a view applies (chunked when the plan is)
        final ViewLimit limit;
        final double lowWatermark;
        final int hide;
        final int keep;
        final UserMessage preface;
        // the limit as calibration last applied it: one per plan, compared by value (plans are shared)
        volatile ViewLimit calibrated;

        private Plan(ViewLimit limit, double lowWatermark, int hide, int keep, UserMessage preface) {
            this.limit = chunkedLimit(limit, lowWatermark);
            this.lowWatermark = lowWatermark;
            this.hide = hide;
            this.keep = keep;
            this.preface = preface;
        }

        /**
         * Every turn, no ceiling: the plan a buffer uses, and where every plan starts.
         *
         * @return the plan that shows everything
         */
        public static Plan showAll() {
            return ALL;
        }

        /**
         * Also leaves the oldest {@code turns} turns out of the view (an open one among them stays).
         * The log keeps them. A plan that hides or keeps turns makes the engine read every turn of
         * the view (not only the tail).
         *
         * @param turns how many of the oldest turns to hide, at least 0
         * @return a new plan
         * @throws IllegalArgumentException if {@code turns < 0}
         */
        public Plan hideOldest(int turns) {
            return new Plan(limit, lowWatermark, atLeast(turns, 0, "hideOldest turns"), keep, preface);
        }

        /**
         * Also shows the oldest {@code turns} turns (after the hidden ones) whatever the ceiling, as a
         * task brief: they count toward the ceiling, and the newest turns fill what is left of it.
         *
         * @param turns how many of the oldest turns to keep, at least 0
         * @return a new plan
         * @throws IllegalArgumentException if {@code turns < 0}
         */
        public Plan keepOldest(int turns) {
            return new Plan(limit, lowWatermark, hide, atLeast(turns, 0, "keepOldest turns"), preface);
        }

        /**
         * A ceiling of {@code max} messages, the pinned system message and summary included
         * (LangChain4j's {@code maxMessages}); replaces any other ceiling.
         *
         * @param max the most messages, at least 1
         * @return a new plan
         * @throws IllegalArgumentException if {@code max < 1}
         */
        public Plan maxMessages(int max) {
            return new Plan(ViewLimit.messages(max), lowWatermark, hide, keep, preface);
        }

        /**
         * A ceiling of {@code max} turns, the pinned messages aside; replaces any other ceiling.
         *
         * @param max the most turns, at least 1
         * @return a new plan
         * @throws IllegalArgumentException if {@code max < 1}
         */
        public Plan maxTurns(int max) {
            return new Plan(ViewLimit.turns(max), lowWatermark, hide, keep, preface);
        }

        /**
         * A ceiling of {@code max} tokens on the whole request: pinned messages, turns and reply
         * priming; a view for a new request leaves room for its question. Replaces any other
         * ceiling; needs {@link MemoryStrategy#countsTokens()}.
         *
         * @param max the most tokens, at least 1
         * @return a new plan
         * @throws IllegalArgumentException if {@code max < 1}
         */
        public Plan maxTokens(int max) {
            return new Plan(ViewLimit.tokens(max), lowWatermark, hide, keep, preface);
        }

        /**
         * Shows every turn (no ceiling) and reports each view of more than {@code contextTokens}
         * tokens to the {@link MemoryListener} as an overflow: the buffer's warning. Replaces any
         * other ceiling; needs {@link MemoryStrategy#countsTokens()}.
         *
         * @param contextTokens the size to report above, in tokens, at least 1
         * @return a new plan
         * @throws IllegalArgumentException if {@code contextTokens < 1}
         */
        public Plan reportTokensOver(int contextTokens) {
            return new Plan(ViewLimit.reportTokensOver(contextTokens), lowWatermark, hide, keep, preface);
        }

        /**
         * Evicts in chunks, for prompt caches: the view keeps its start and grows until it would pass
         * the ceiling, then drops to {@code lowWatermark} of it (whole turns) and grows again, so
         * consecutive requests share their prefix. Where the view starts is kept in the session
         * state, so every instance of the memory keeps the same prefix.
         *
         * @param lowWatermark the share of the ceiling the view drops to, at least 0 and below 1
         * @return a new plan
         * @throws IllegalArgumentException unless {@code 0 <= lowWatermark < 1}
         * @throws IllegalStateException    if the plan has no cutting ceiling
         */
        public Plan chunked(double lowWatermark) {
            if (!(lowWatermark >= 0 && lowWatermark < 1)) {
                throw new IllegalArgumentException("lowWatermark must be >= 0 and < 1, was " + lowWatermark);
            }
            if (limit.unit() == null || !limit.cuts()) {
                throw new IllegalStateException("chunked eviction needs a ceiling: maxMessages, maxTurns or maxTokens");
            }
            return new Plan(limit, lowWatermark, hide, keep, preface);
        }

        /**
         * Shows {@code message} right after the pinned system message and summary, before the turns:
         * a message the strategy makes (say, a record of hidden turns). It is never stored: passed
         * back to {@code set} it changes nothing. It counts toward a ceiling in messages or tokens.
         *
         * @param message the preface
         * @return a new plan
         * @throws IllegalArgumentException if {@code message} is null
         */
        public Plan preface(UserMessage message) {
            if (message == null) {
                throw new IllegalArgumentException("preface must not be null");
            }
            return new Plan(limit, lowWatermark, hide, keep, message);
        }

        /**
         * The preface, if any.
         *
         * @return the preface, if any
         */
        public Optional<UserMessage> preface() {
            return Optional.ofNullable(preface);
        }

        /**
         * The limit a view applies for a ceiling of {@code value} in this plan's unit (chunked as
         * planned): the plan's own for its value, else made once per value (calibration moves it).
         */
        ViewLimit limitOf(int value) {
            if (value == limit.value()) {
                return limit;
            }
            ViewLimit last = calibrated;
            if (last == null || last.value() != value) {
                last = chunkedLimit(limit.cuts() ? ViewLimit.of(limit.unit(), value) : ViewLimit.reportTokensOver(value),
                        lowWatermark);
                calibrated = last;
            }
            return last;
        }

        private static ViewLimit chunkedLimit(ViewLimit base, double lowWatermark) {
            return lowWatermark < 1 && base.cuts() ? base.chunked((int) Math.floor(base.value() * lowWatermark)) : base;
        }

        /** True if the view needs every turn after the summary (not only the tail). */
        boolean readsEveryTurn() {
            return hide > 0 || keep > 0 || preface != null;
        }

        private static int atLeast(int value, int min, String name) {
            if (value < min) {
                throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
            }
            return value;
        }

        /**
         * Plans are equal when they show the same.
         *
         * @param o the other object
         * @return true if {@code o} is a plan that shows the same
         */
        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Plan)) {
                return false;
            }
            Plan other = (Plan) o;
            return limit.equals(other.limit) && lowWatermark == other.lowWatermark && hide == other.hide
                    && keep == other.keep && Objects.equals(preface, other.preface);
        }

        /**
         * A hash code consistent with {@link #equals}.
         *
         * @return the hash code
         */
        @Override
        public int hashCode() {
            return Objects.hash(limit, lowWatermark, hide, keep, preface);
        }

        /**
         * What the plan shows, for logs.
         *
         * @return a short description
         */
        @Override
        public String toString() {
            return "Plan{" + limit + (lowWatermark < 1 ? ", chunks down to " + lowWatermark : "")
                    + (hide > 0 ? ", hide oldest " + hide : "") + (keep > 0 ? ", keep oldest " + keep : "")
                    + (preface != null ? ", preface" : "") + '}';
        }
    }
}
