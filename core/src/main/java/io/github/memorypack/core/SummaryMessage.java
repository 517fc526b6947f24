package io.github.memorypack.core;

import dev.langchain4j.data.message.SystemMessage;
import java.util.Objects;
import java.util.Optional;

/**
 * The running summary as a summarizing memory shows it: a {@link SystemMessage} right after the
 * application's system message, with {@link #HEADER} before the summary text — or, with
 * {@link Placement#IN_SYSTEM_MESSAGE}, the application's system message and the summary in one.
 *
 * <p>A memory recognises its summary message when it comes back: {@code set(memory.messages())}
 * (LangChain4j's tool compensation) keeps the summary in the session state, and {@code add} of a
 * summary message (LangChain4j's output guardrails re-add every message after {@code clear()})
 * restores it there. A summary message is never stored as a message of the log, and never becomes the
 * application's system message.
 *
 * <p>Immutable, so thread-safe.
 */
public final class SummaryMessage extends SystemMessage {

    /** The line before the summary text. */
    public static final String HEADER =
            "Summary of the earlier conversation (written by the chat memory; the messages it covers are not repeated):";

    /** Where a summarizing memory puts its summary in a request. */
    public enum Placement {
        /** Its own system message right after the application's (the default). */
        SYSTEM_MESSAGE,
        /** Appended to the application's system message, for models that take one system message only. */
        IN_SYSTEM_MESSAGE,
        /**
         * A delimited, labelled user message before the turns, for models that take a system message
         * only at the start and nothing else from the application. It is a record, not instructions.
         */
        BEFORE_TURNS
    }

    private final String summaryText;
    private final SystemMessage applicationMessage;

    private SummaryMessage(String text, String summaryText, SystemMessage applicationMessage) {
        super(text);
        this.summaryText = summaryText;
        this.applicationMessage = applicationMessage;
    }

    /**
     * The summary as its own system message, as a view shows it with {@link Placement#SYSTEM_MESSAGE}:
     * {@link #HEADER}, a blank line, then the text. Given back to a memory's {@code set}, it goes back
     * to the session state as the summary.
     *
     * @param summaryText the summary text
     * @return the message
     * @throws IllegalArgumentException if {@code summaryText} is null
     */
    public static SummaryMessage of(String summaryText) {
        if (summaryText == null) {
            throw new IllegalArgumentException("summaryText must not be null");
        }
        return new SummaryMessage(HEADER + "\n\n" + summaryText, summaryText, null);
    }

    /** The application's system message with the summary appended. */
    static SummaryMessage merged(SystemMessage application, String summaryText) {
        Objects.requireNonNull(summaryText, "summaryText");
        if (application == null) {
            return of(summaryText);
        }
        return new SummaryMessage(application.text() + "\n\n" + HEADER + "\n\n" + summaryText, summaryText, application);
    }

    /**
     * The summary text alone, without the header.
     *
     * @return the summary text alone, without the header
     */
    public String summaryText() {
        return summaryText;
    }

    /**
     * The application's system message this one also holds ({@link Placement#IN_SYSTEM_MESSAGE}); empty
     * otherwise.
     *
     * @return the merged system message, or empty
     */
    public Optional<SystemMessage> applicationSystemMessage() {
        return Optional.ofNullable(applicationMessage);
    }
}
