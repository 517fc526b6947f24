package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import java.util.ArrayList;
import java.util.List;

/**
 * What every Memory Pack {@link ChatMemory} does the same way: {@link #add} appends to the session
 * log, {@link #set} replaces it in one store call, {@link #clear} deletes the session. A strategy
 * only decides what {@link #messages()} shows, with {@link #memory} and {@link #rules}.
 */
public abstract class SessionChatMemory implements ChatMemory {

    /** The session plumbing of this memory. */
    protected final SessionMemory memory;
    /** The shared view rules, configured by the memory's settings. */
    protected final ViewRules rules;

    /**
     * @param strategyCounts whether the strategy itself needs a token count with every entry
     */
    protected SessionChatMemory(MemorySettings settings, boolean strategyCounts) {
        this.rules = settings.rules();
        this.memory = settings.sessionMemory(rules, strategyCounts);
    }

    @Override
    public final Object id() {
        return memory.id();
    }

    /**
     * Appends the message to the session log. A system message equal to the current one changes
     * nothing; a different one replaces it and is also recorded in the log.
     */
    @Override
    public final void add(ChatMessage message) {
        memory.add(message);
        afterAdd(message);
    }

    /**
     * Called after {@code message} was appended (for example to start a fold when a turn ends).
     * Does nothing by default.
     */
    protected void afterAdd(ChatMessage message) {
    }

    /**
     * Replaces the whole log with {@code messages} in one store call and clears the summary.
     *
     * @throws IllegalArgumentException if {@code messages} is empty
     */
    @Override
    public final void set(Iterable<ChatMessage> messages) {
        memory.set(messages);
    }

    /** Deletes the session: its log, state and idempotency keys. */
    @Override
    public final void clear() {
        memory.clear();
    }

    /** Reports the view's overflow, applies retention, and returns a mutable copy of its messages. */
    protected final List<ChatMessage> show(View view) {
        memory.afterView(view);
        return new ArrayList<>(view.messages());
    }
}
