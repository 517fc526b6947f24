package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A chat memory that shows the last messages, turns or tokens of a session — and never deletes
 * anything: the window is a view over the session's log in a {@link SessionStore}, and eviction
 * only moves the view.
 *
 * <p>Set exactly one limit: {@code maxMessages}, {@code maxTurns} or {@code maxTokens}, each fixed
 * or per session. The view follows the shared {@link ViewRules}: the system message is pinned first
 * (and counts toward {@code maxMessages} and {@code maxTokens}); cuts fall only between turns, so
 * the window always starts with a user message; an AI message with tool calls is shown with exactly
 * its results; an interrupted tool call is repaired; the newest turn is always shown even when it
 * alone is over the limit, and then the {@link OverflowListener} is told (by default it logs a
 * warning). {@code maxTokens} counts a request as the tokenizer does, using the token count stored
 * with each message when it was added: a turn never re-counts history.
 *
 * <p>{@link #add} appends one entry (atomic, safe with concurrent requests on the same session;
 * inside a {@link RequestScope} a retried request is stored once). {@link #messages()} reads only
 * the tail of the log it needs, and after the first read of a session only what was appended since. {@link #set} replaces the log in one store call and {@link #clear}
 * deletes the session. The log is trimmed only by the {@link Retention} policy (default
 * {@link Retention#keepAll()}), and never below what the window shows.
 *
 * <pre>{@code
 * ChatMemory memory = WindowChatMemory.builder().id("user-42").store(store).maxMessages(20).build();
 * }</pre>
 */
public final class WindowChatMemory extends SessionChatMemory {

    /** How many entries a token window reads first; later reads start from what the last one needed. */
    static final int FIRST_TOKEN_READ = 64;

    private final ViewLimit.Unit unit;
    private final Function<Object, Integer> limit;
    private volatile ViewLimit lastLimit;

    private WindowChatMemory(MemorySettings settings, ViewLimit.Unit unit, Function<Object, Integer> limit) {
        super(settings, unit == ViewLimit.Unit.TOKENS);
        this.unit = unit;
        this.limit = limit;
        currentLimit(); // a per-session limit is checked once up front, like LangChain4j does
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The window: pinned system message, then the newest whole turns within the limit. */
    @Override
    public List<ChatMessage> messages() {
        ViewLimit viewLimit = currentLimit();
        int firstRead;
        switch (unit) {
            case MESSAGES:
                firstRead = viewLimit.value() + viewLimit.value() / 2 + 4;
                break;
            case TURNS:
                firstRead = viewLimit.value() * 4 + 4;
                break;
            default:
                firstRead = Math.max(FIRST_TOKEN_READ, memory.lastReadCount());
                break;
        }
        return show(memory.tail(rules, viewLimit, firstRead));
    }

    private ViewLimit currentLimit() {
        int value = MemorySettings.limit(limit, memory.id(), Builder.name(unit));
        ViewLimit last = lastLimit;
        if (last == null || last.value() != value) {
            last = ViewLimit.of(unit, value);
            lastLimit = last;
        }
        return last; // the same object while the limit stays the same: nothing to allocate or compare per turn
    }

    @Override
    public String toString() {
        return "WindowChatMemory{id=" + memory.sessionId() + ", " + unit + '}';
    }

    /**
     * Builds a {@link WindowChatMemory}. Exactly one of {@code maxMessages}, {@code maxTurns} and
     * {@code maxTokens} must be set.
     */
    public static final class Builder extends MemoryBuilder<Builder> {

        private ViewLimit.Unit unit;
        private Function<Object, Integer> limit;
        private Integer fixedLimit;
        private int limitsSet;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Shows at most {@code maxMessages} messages, the pinned system message included. */
        public Builder maxMessages(int maxMessages) {
            return fixed(ViewLimit.Unit.MESSAGES, maxMessages);
        }

        /** {@link #maxMessages(int)} decided per memory id, at every read. */
        public Builder maxMessages(Function<Object, Integer> maxMessages) {
            return limit(ViewLimit.Unit.MESSAGES, maxMessages);
        }

        /** Shows at most {@code maxTurns} turns (a user message and everything up to the next one). */
        public Builder maxTurns(int maxTurns) {
            return fixed(ViewLimit.Unit.TURNS, maxTurns);
        }

        /** {@link #maxTurns(int)} decided per memory id, at every read. */
        public Builder maxTurns(Function<Object, Integer> maxTurns) {
            return limit(ViewLimit.Unit.TURNS, maxTurns);
        }

        /**
         * Shows at most {@code maxTokens} tokens, counting the whole request (system message,
         * messages and reply priming) with the {@link #tokenizer}.
         */
        public Builder maxTokens(int maxTokens) {
            return fixed(ViewLimit.Unit.TOKENS, maxTokens);
        }

        /** {@link #maxTokens(int)} decided per memory id, at every read. */
        public Builder maxTokens(Function<Object, Integer> maxTokens) {
            return limit(ViewLimit.Unit.TOKENS, maxTokens);
        }

        /** What may be trimmed from the log for good; default {@link Retention#keepAll()}. */
        public Builder retention(Retention retention) {
            settings.retention(retention);
            return this;
        }

        /**
         * @throws IllegalStateException    if not exactly one limit was set
         * @throws IllegalArgumentException if the limit for this id is below 1
         * @throws io.github.memorypack.core.InvalidSessionIdException if the id is not a valid session id
         */
        public WindowChatMemory build() {
            checkOneLimit();
            return new WindowChatMemory(settings, unit, limit);
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store (the default store is created once, here).
         *
         * @throws IllegalStateException if not exactly one limit was set
         */
        public ChatMemoryProvider provider() {
            checkOneLimit();
            MemorySettings snapshot = settings.copy();
            ViewLimit.Unit providerUnit = unit;
            Function<Object, Integer> providerLimit = limit;
            return memoryId -> new WindowChatMemory(snapshot.forId(memoryId), providerUnit, providerLimit);
        }

        private void checkOneLimit() {
            if (limitsSet != 1) {
                throw new IllegalStateException("set exactly one of maxMessages, maxTurns and maxTokens ("
                        + (limitsSet == 0 ? "none" : limitsSet) + " set)");
            }
            settings.validate();
            if (fixedLimit != null && fixedLimit < 1) {
                throw new IllegalArgumentException(name(unit) + " must be >= 1, was " + fixedLimit);
            }
        }

        private static String name(ViewLimit.Unit unit) {
            return unit == ViewLimit.Unit.MESSAGES ? "maxMessages" : unit == ViewLimit.Unit.TURNS ? "maxTurns" : "maxTokens";
        }

        private Builder fixed(ViewLimit.Unit unit, int value) {
            limit(unit, id -> value);
            fixedLimit = value;
            return this;
        }

        private Builder limit(ViewLimit.Unit unit, Function<Object, Integer> limit) {
            Objects.requireNonNull(limit, "limit");
            if (this.unit != unit) {
                limitsSet++;
            }
            this.unit = unit;
            this.limit = limit;
            this.fixedLimit = null;
            return this;
        }
    }
}
