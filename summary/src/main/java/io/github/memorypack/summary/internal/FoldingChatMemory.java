package io.github.memorypack.summary.internal;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.internal.MemorySettings;
import io.github.memorypack.core.internal.SessionMemory;
import io.github.memorypack.core.view.ViewRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What both summarizing memories do the same way: {@link #add} appends to the session log and,
 * when a turn finishes (an AI message without tool requests), gives the {@link FoldEngine} a
 * chance to fold; {@link #messages()} shows the system message, the summary and every unsummarized
 * turn through the shared {@link ViewRules}; {@link #set} replaces the log and drops the summary;
 * {@link #clear} deletes the session. A strategy only supplies its {@link FoldEngine.Policy}.
 */
public abstract class FoldingChatMemory implements ChatMemory {

    private final SessionMemory memory;
    private final ViewRules rules;
    private final FoldEngine engine;

    protected FoldingChatMemory(MemorySettings settings, SummarySettings summarySettings, FoldEngine.Policy policy) {
        this.rules = settings.rules();
        this.memory = settings.sessionMemory(rules, true); // folding adds up the stored counts
        this.engine = new FoldEngine(memory, summarySettings, rules.tokenizer(), policy);
    }

    @Override
    public final Object id() {
        return memory.id();
    }

    /** Appends the message; a finished turn may trigger a fold. */
    @Override
    public final void add(ChatMessage message) {
        memory.add(message);
        if (message instanceof AiMessage ai && !ai.hasToolExecutionRequests()) {
            engine.turnFinished();
        }
    }

    /** System message, summary, then the turns the summary does not cover. */
    @Override
    public final List<ChatMessage> messages() {
        return new ArrayList<>(engine.view(rules).messages());
    }

    /**
     * Replaces the whole log with {@code messages} in one store call and drops the summary.
     *
     * @throws IllegalArgumentException if {@code messages} is empty
     */
    @Override
    public final void set(Iterable<ChatMessage> messages) {
        memory.set(messages);
    }

    /** Deletes the session: log, summary and state. */
    @Override
    public final void clear() {
        memory.clear();
    }

    /** The stored summary, if any. */
    public final Optional<Summary> summary() {
        return engine.summary();
    }

    /** The session id, for {@code toString()}. */
    protected final String sessionId() {
        return memory.sessionId();
    }
}
