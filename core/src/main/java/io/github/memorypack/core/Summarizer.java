package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import java.util.List;

/**
 * Folds messages into a running summary: given the current summary and the messages to add to it
 * (oldest first, whole turns), returns the new summary text that replaces the old one.
 *
 * <p>Rules an implementation keeps:
 * <ul>
 *   <li>The result stands alone: it must carry everything of the previous summary that is still
 *       worth keeping, because the memory replaces the old text with it.</li>
 *   <li>Failure is signalled by throwing — preferably {@link SummarizationException} — never by
 *       returning an error text. Memories treat a thrown exception, a {@code null}, a blank text
 *       and a text over their summary token cap alike: nothing is changed and the fold is retried
 *       on a later turn.</li>
 *   <li>It may be called from a background thread, but never concurrently for one session.</li>
 * </ul>
 *
 * <p>Factories: {@link #llm(ChatModel)} (an {@link LlmSummarizer} with the default prompt) and
 * {@link #extractive()} (offline, no model needed).
 */
@FunctionalInterface
public interface Summarizer {

    /**
     * Returns the new summary.
     *
     * @param previousSummary the current summary text; empty (never {@code null}) when there is none
     * @param messages        the messages to fold in, oldest first; never empty
     * @return the new summary text, covering the previous summary and {@code messages}
     * @throws SummarizationException (or any runtime exception) when no usable summary was produced
     */
    String summarize(String previousSummary, List<ChatMessage> messages);

    /** An {@link LlmSummarizer} on {@code model} with the default prompt, cap and retries. */
    static Summarizer llm(ChatModel model) {
        return LlmSummarizer.builder().chatModel(model).build();
    }

    /**
     * An offline, deterministic summarizer that needs no model: it keeps the sentences that carry
     * names, numbers, dates and stated preferences, newest facts first, within 500 tokens.
     */
    static Summarizer extractive() {
        return ExtractiveSummarizer.builder().build();
    }

    /**
     * {@link #extractive()} with a cap of {@code maxSummaryTokens}.
     *
     * @throws IllegalArgumentException if {@code maxSummaryTokens < 1}
     */
    static Summarizer extractive(int maxSummaryTokens) {
        return ExtractiveSummarizer.builder().maxSummaryTokens(maxSummaryTokens).build();
    }
}
