package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
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
public abstract class FoldingChatMemory extends SessionChatMemory {

    private final FoldEngine engine;

    protected FoldingChatMemory(MemorySettings settings, SummarySettings summarySettings, FoldEngine.Policy policy) {
        super(settings, true); // folding adds up the stored counts
        this.engine = new FoldEngine(memory, summarySettings, rules.tokenizer(), policy);
    }

    /** A finished turn (an AI message that calls no tool) may trigger a fold. */
    @Override
    protected final void afterAdd(ChatMessage message) {
        if (message instanceof AiMessage ai && !ai.hasToolExecutionRequests()) {
            engine.turnFinished();
        }
    }

    /** System message, summary, then the turns the summary does not cover. */
    @Override
    public final List<ChatMessage> messages() {
        return new ArrayList<>(engine.view(rules).messages());
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
