package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import java.util.List;
import java.util.Optional;

/**
 * One computed view: the messages to send, where each came from, and what the memory needs to know
 * about how they were chosen. Immutable.
 */
final class View {

    private final List<ChatMessage> messages;
    // the log entry each shown message stands for (the full entry behind a preview or an image note);
    // null for the pinned system message, the summary and synthetic repairs
    private final List<Entry> sources;
    private final ViewLimit limit;
    private final int size;
    private final int turns;
    private final long firstIndex;
    private final boolean needsOlderEntries;
    private final ChatMessage summaryMessage;
    private final Tail tail;
    private final long cutIndex;
    private final int hiddenRunning;
    private final boolean hiddenAny;
    private final ChatMessage preface;

    View(List<ChatMessage> messages, List<Entry> sources, ViewLimit limit, int size, int turns, long firstIndex,
         boolean needsOlderEntries, ChatMessage summaryMessage, Tail tail) {
        this(messages, sources, limit, size, turns, firstIndex, needsOlderEntries, summaryMessage, tail, firstIndex);
    }

    View(List<ChatMessage> messages, List<Entry> sources, ViewLimit limit, int size, int turns, long firstIndex,
         boolean needsOlderEntries, ChatMessage summaryMessage, Tail tail, long cutIndex) {
        this(messages, sources, limit, size, turns, firstIndex, needsOlderEntries, summaryMessage, tail, cutIndex, 0, false);
    }

    View(List<ChatMessage> messages, List<Entry> sources, ViewLimit limit, int size, int turns, long firstIndex,
         boolean needsOlderEntries, ChatMessage summaryMessage, Tail tail, long cutIndex, int hiddenRunning,
         boolean hiddenAny) {
        this(messages, sources, limit, size, turns, firstIndex, needsOlderEntries, summaryMessage, tail, cutIndex,
                hiddenRunning, hiddenAny, null);
    }

    View(List<ChatMessage> messages, List<Entry> sources, ViewLimit limit, int size, int turns, long firstIndex,
         boolean needsOlderEntries, ChatMessage summaryMessage, Tail tail, long cutIndex, int hiddenRunning,
         boolean hiddenAny, ChatMessage preface) {
        this.preface = preface;
        this.hiddenRunning = hiddenRunning;
        this.hiddenAny = hiddenAny;
        this.messages = messages;
        this.sources = sources;
        this.limit = limit;
        this.size = size;
        this.turns = turns;
        this.firstIndex = firstIndex;
        this.needsOlderEntries = needsOlderEntries;
        this.summaryMessage = summaryMessage;
        this.tail = tail;
        this.cutIndex = cutIndex;
    }

    /**
     * Log index where the run of shown turns that ends with the newest one starts (older open turns
     * may be shown too); -1 when the view shows no turn. A chunked window keeps it as its anchor.
     */
    long cutIndex() {
        return cutIndex;
    }

    /** How many running turns of other requests this view left out (see {@link Dialogue}). */
    int hiddenRunning() {
        return hiddenRunning;
    }

    /**
     * True if this view left out a turn because of who asked (another request's running turn, or a
     * turn after the caller's own): it is the caller's alone and is not cached.
     */
    boolean hiddenAny() {
        return hiddenAny;
    }

    /**
     * True if a caller that runs {@code ownTurn} (null: none) may be shown this view: its newest turn
     * is closed, untagged, or the caller's own.
     */
    boolean fitsCaller(String ownTurn) {
        return tail == null || !tail.newestOpen || tail.newestTurnId == null || tail.newestTurnId.equals(ownTurn);
    }

    /** What {@link ViewRules#extend} needs to extend this view; null when it cannot be extended. */
    Tail tail() {
        return tail;
    }

    boolean extendable() {
        return tail != null;
    }

    /** Index of the newest log entry this view was computed from; {@code -1} if not {@link #extendable()}. */
    long lastIndex() {
        return tail == null ? -1 : tail.last.index();
    }

    /**
     * True if this view is {@link #extendable()} and {@code entry} is the newest entry it was computed
     * from: the same index and id, so the log was not replaced since.
     */
    boolean computedThrough(Entry entry) {
        return tail != null && entry.index() == tail.last.index()
                && (entry == tail.last || entry.id().equals(tail.last.id()));
    }

    /** The messages to send, pinned messages first. Immutable. */
    List<ChatMessage> messages() {
        return messages;
    }

    /**
     * The log entry behind each message of {@link #messages()}, in the same order: null for the pinned
     * system message, the summary and synthetic repairs. Immutable.
     */
    List<Entry> sources() {
        return sources;
    }

    /** The strategy's preface (right after the pinned messages, never stored), or null. */
    ChatMessage preface() {
        return preface;
    }

    /** The rendered summary, or null. */
    ChatMessage summaryMessage() {
        return summaryMessage;
    }

    ViewLimit limit() {
        return limit;
    }

    /** The view's size in the limit's unit; for {@link ViewLimit#none()} the number of messages. */
    int size() {
        return size;
    }

    int turns() {
        return turns;
    }

    /**
     * Log index from which retention must keep the log for this view: the oldest entry it shows, or
     * the older question a token window's room for the next question was estimated from
     * ({@link QuestionRoom#estimatedFrom}); {@code -1} when it shows no log entry.
     */
    long firstIndex() {
        return firstIndex;
    }

    /**
     * True when the entries given may not be all the view needs: every turn fitted and older entries
     * could add more, or an entry belongs to a turn that starts before them.
     */
    boolean needsOlderEntries() {
        return needsOlderEntries;
    }

    boolean overLimit() {
        return limit.unit() != null && size > limit.value();
    }

    Optional<MemoryListener.Overflow> overflow(String sessionId) {
        return overLimit() ? Optional.of(new MemoryListener.Overflow(sessionId, limit.unit(), limit.value(), size))
                : Optional.empty();
    }

    @Override
    public String toString() {
        return "View{" + messages.size() + " messages, " + turns + " turns, size=" + size + ", limit=" + limit
                + ", firstIndex=" + firstIndex + '}';
    }

    /**
     * What {@link ViewRules#extend} needs to extend a view: its range of a {@link TurnTrack} (turns
     * {@code [turnFrom, turnTo)}, messages up to {@code messageTo}), the running size total at its end,
     * the pinned messages and their size, the newest entry it was computed from, and its newest turn:
     * whether it is still open and its id.
     */
    static final class Tail {
        final TurnTrack track;
        final int turnFrom;
        final int turnTo;
        final int messageTo;
        final long total;
        final long stateVersion;
        final List<ChatMessage> pinned;
        final long pinnedSize;
        final Entry last;
        final boolean newestOpen;
        final String newestTurnId;

        Tail(TurnTrack track, int turnFrom, int turnTo, int messageTo, long total, long stateVersion,
             List<ChatMessage> pinned, long pinnedSize, Entry last, boolean newestOpen, String newestTurnId) {
            this.track = track;
            this.turnFrom = turnFrom;
            this.turnTo = turnTo;
            this.messageTo = messageTo;
            this.total = total;
            this.stateVersion = stateVersion;
            this.pinned = pinned;
            this.pinnedSize = pinnedSize;
            this.last = last;
            this.newestOpen = newestOpen;
            this.newestTurnId = newestTurnId;
        }

        int messageFrom() {
            return track.turnStarts[turnFrom];
        }
    }
}
