package io.github.memorypack.recall;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.AudioContent;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.PdfFileContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.message.VideoContent;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What recall reads out of a log entry and how it shows a turn: the searchable text of a message,
 * the turn's messages read back from the store, and its rendering with its date.
 */
final class Turns {

    /** Starts the block {@link RecallContentRetriever#augmentor()} appends to the user message. */
    static final String RECALL_MARKER = "\n\n[Recalled from earlier in this conversation";
    /** Starts the block LangChain4j's {@code DefaultContentInjector} appends with its default template. */
    static final String LANGCHAIN4J_MARKER = "\n\nAnswer using the following information:\n";
    /** Longest text of one message that is indexed (and embedded); the rest is still shown when recalled. */
    static final int MAX_INDEXED_CHARS = 2_000;
    /** How many indexed messages of a turn one read aims at; a longer turn is read on. */
    private static final int TURN_READ = 16;
    /** Longest turn that is read back, in entries; what follows is left out of the recalled text. */
    static final int MAX_TURN_ENTRIES = 256;

    private Turns() {
    }

    /**
     * The text of a user or AI message that recall indexes, or {@code null} for messages it does not
     * index (system messages are records of the application's prompt, tool calls and results are not
     * conversation). A user message loses a recall block that an augmentor stored with it, so recalled
     * text is never indexed a second time.
     */
    static String searchableText(ChatMessage message) {
        String text;
        if (message instanceof UserMessage) {
            text = stripRecalled(userText((UserMessage) message));
        } else if (message instanceof AiMessage) {
            text = ((AiMessage) message).text();
        } else {
            return null;
        }
        if (text == null || text.isBlank()) {
            return null;
        }
        return text.length() > MAX_INDEXED_CHARS ? text.substring(0, MAX_INDEXED_CHARS) : text;
    }

    static String userText(UserMessage message) {
        StringBuilder text = new StringBuilder();
        for (Content content : message.contents()) {
            if (content instanceof TextContent) {
                if (text.length() > 0) {
                    text.append('\n');
                }
                text.append(((TextContent) content).text());
            }
        }
        return text.toString();
    }

    /** What the user said in a message: its text without a stored recall block, stripped of outer blanks. */
    static String said(UserMessage message) {
        return stripRecalled(userText(message)).strip();
    }

    /** The text without a recall block appended by an augmentor (ours or LangChain4j's default one). */
    static String stripRecalled(String text) {
        int cut = text.indexOf(RECALL_MARKER);
        if (cut < 0) {
            cut = text.indexOf(LANGCHAIN4J_MARKER);
        }
        return cut < 0 ? text : text.substring(0, cut);
    }

    /**
     * The entries with these log indices (a turn's indexed messages, in log order, at most
     * {@link #MAX_TURN_ENTRIES}), read from the store. Entries trimmed since are missing from the result.
     */
    static List<Entry> read(SessionStore store, String sessionId, List<Long> indices) {
        List<Entry> turn = new ArrayList<>();
        int i = 0;
        while (i < indices.size() && turn.size() < MAX_TURN_ENTRIES) {
            long from = indices.get(i);
            long span = indices.get(Math.min(indices.size(), i + TURN_READ) - 1) - from + 1;
            // contiguous indices (the usual turn) come in one read, an interleaved turn in a few
            List<Entry> batch = store.read(sessionId, from, (int) Math.min(span, TURN_READ * 4L));
            if (batch.isEmpty()) {
                break; // nothing from there on is left
            }
            for (Entry entry : batch) {
                while (i < indices.size() && indices.get(i) < entry.index()) {
                    i++; // trimmed from the log
                }
                if (i < indices.size() && indices.get(i) == entry.index()) {
                    turn.add(entry);
                    i++;
                }
            }
        }
        return turn.size() > MAX_TURN_ENTRIES ? turn.subList(0, MAX_TURN_ENTRIES) : turn;
    }

    /** How many words of the matched sentence a reference to a shown turn quotes. */
    static final int REFERENCE_WORDS = 10;
    /** Where a sentence ends: after its full stop, question or exclamation mark (what is embedded and quoted apart). */
    static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+");

    /**
     * A reference to a turn the view shows, for a temporal question about it: the date of its message that
     * matched ({@code best}) and what the relative times that message says meant then, and the first
     * {@value #REFERENCE_WORDS} words of the message's sentence that holds most of the query's {@code words}
     * (the view has the rest): {@code Turn shown above (Sunday 7 May 2023, 13:56 UTC; "yesterday" = Saturday 6
     * May 2023): User: I finally made it to Kyoto yesterday, the temples were…}. {@code null} if that message
     * is not in the turn.
     */
    static String reference(List<Entry> turn, long best, Set<String> words, RecallAnalyzer analyzer) {
        for (Entry entry : turn) {
            if (entry.index() == best) {
                String text = shownText(entry.message());
                return text == null ? null : dated("Turn shown above", entry.timestamp(), text).append("): ")
                        .append(role(entry.message())).append(": ").append(quote(text, words, analyzer)).toString();
            }
        }
        return null;
    }

    /** The text recall shows of a message: what the user said, an AI message's text; {@code null} for none. */
    private static String shownText(ChatMessage message) {
        if (message instanceof UserMessage) {
            String said = said((UserMessage) message);
            return said.isEmpty() ? attachments((UserMessage) message) : said;
        }
        String text = message instanceof AiMessage ? ((AiMessage) message).text() : null;
        return text == null || text.isBlank() ? null : text.strip();
    }

    /** What a user message without words holds, as core's transcripts name it ({@code [image]}, {@code [audio]}…), or null. */
    private static String attachments(UserMessage message) {
        StringBuilder parts = new StringBuilder();
        for (Content content : message.contents()) {
            if (!(content instanceof TextContent)) {
                String name = content instanceof ImageContent ? "image" : content instanceof AudioContent ? "audio"
                        : content instanceof VideoContent ? "video" : content instanceof PdfFileContent ? "pdf"
                        : String.valueOf(content.type()).toLowerCase(java.util.Locale.ROOT);
                parts.append(parts.length() == 0 ? "" : " ").append('[').append(name).append(']');
            }
        }
        return parts.length() == 0 ? null : parts.toString();
    }

    private static String role(ChatMessage message) {
        return message instanceof UserMessage ? "User" : "Assistant";
    }

    /** {@code kind (date; what the relative times in text meant then}: the start of a turn's label, left open. */
    private static StringBuilder dated(String kind, Instant time, String text) {
        StringBuilder label = new StringBuilder(kind).append(" (").append(Dates.label(time));
        for (String note : Dates.resolve(text, time)) {
            label.append("; ").append(note);
        }
        return label;
    }

    /** The first words of the sentence of {@code text} that holds most of {@code words}, marked "…" where cut. */
    private static String quote(String text, Set<String> words, RecallAnalyzer analyzer) {
        String[] sentences = SENTENCE_END.split(text);
        int chosen = 0;
        int most = 0;
        for (int i = 0; i < sentences.length; i++) {
            int held = 0;
            try {
                for (String term : analyzer.terms(sentences[i])) {
                    held += words.contains(term) ? 1 : 0;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (held > most) {
                chosen = i;
                most = held;
            }
        }
        String[] sentenceWords = sentences[chosen].strip().split("\\s+");
        StringBuilder quote = new StringBuilder(chosen > 0 ? TRIMMED : "");
        for (int i = 0; i < Math.min(REFERENCE_WORDS, sentenceWords.length); i++) {
            quote.append(i > 0 ? " " : "").append(sentenceWords[i]);
        }
        if (sentenceWords.length > REFERENCE_WORDS) {
            quote.append(TRIMMED);
        }
        return quote.toString();
    }

    /** What a message of a recalled turn that matched nothing of the query is shown as. */
    static final String TRIMMED = "…";

    /**
     * A turn as recalled text: a header with its date ({@code Earlier turn (Sunday 7 May 2023, 13:56
     * UTC):}) and what the relative times it says meant on that date ({@code "yesterday" = Saturday 6 May
     * 2023}), then one line per user and AI message with text. Tool calls, tool results and system
     * messages are left out. With {@code matched} (the log indices of the messages that matched the query;
     * {@code null}, or none of the turn's: all are shown), a message that matched nothing is shown as
     * {@value #TRIMMED} unless it answers a matched question (it comes right after a matched message with a
     * question mark) or is what a matched message replies to (it comes right before one): "User: My sister
     * Ingrid moved to Tromsø. / Assistant: …" for "Where does Ingrid live?", the whole turn for a matched
     * question and its answer.
     */
    static String render(List<Entry> turn, Set<Long> matched) {
        List<String> roles = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<Long> indices = new ArrayList<>();
        for (Entry entry : turn) {
            String text = shownText(entry.message());
            if (text != null) {
                roles.add(role(entry.message()));
                texts.add(text);
                indices.add(entry.index());
            }
        }
        boolean trim = matched != null && indices.stream().anyMatch(matched::contains);
        StringBuilder lines = new StringBuilder();
        StringBuilder shown = new StringBuilder();
        for (int i = 0; i < texts.size(); i++) {
            String text = texts.get(i);
            // shown: what matched, the answer to a matched question, and what a matched message replies to
            boolean keep = !trim || matched.contains(indices.get(i))
                    || i > 0 && matched.contains(indices.get(i - 1)) && texts.get(i - 1).indexOf('?') >= 0
                    || i + 1 < texts.size() && matched.contains(indices.get(i + 1));
            lines.append('\n').append(roles.get(i)).append(": ").append(keep ? text : TRIMMED);
            if (keep) {
                shown.append('\n').append(text);
            }
        }
        return dated("Earlier turn", turn.get(0).timestamp(), shown.toString()).append("):").append(lines).toString();
    }
}
