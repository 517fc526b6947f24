package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import java.util.List;
import java.util.Optional;

/**
 * One computed view: the messages to send, and what the memory needs to know about how they were
 * chosen. Immutable.
 */
public final class View {

    private final List<ChatMessage> messages;
    private final ViewLimit limit;
    private final int size;
    private final int turns;
    private final long firstIndex;
    private final boolean needsOlderEntries;
    private final Tail tail;

    View(List<ChatMessage> messages, ViewLimit limit, int size, int turns, long firstIndex,
         boolean needsOlderEntries, Tail tail) {
        this.messages = messages; // immutable, built by ViewRules for this view
        this.limit = limit;
        this.size = size;
        this.turns = turns;
        this.firstIndex = firstIndex;
        this.needsOlderEntries = needsOlderEntries;
        this.tail = tail;
    }

    /** What {@link ViewRules#extend} needs to extend this view; null when it cannot be extended. */
    Tail tail() {
        return tail;
    }

    /**
     * True if {@link ViewRules#extend} may be able to compute the next view from this one and the
     * entries appended after {@link #lastIndex()}.
     */
    public boolean extendable() {
        return tail != null;
    }

    /** Index of the newest log entry this view was computed from; {@code -1} if not {@link #extendable()}. */
    public long lastIndex() {
        return tail == null ? -1 : tail.last.index();
    }

    /** Id of the entry at {@link #lastIndex()}, to tell whether the log was replaced since; null if not extendable. */
    public String lastId() {
        return tail == null ? null : tail.last.id();
    }

    /**
     * True if this view is {@link #extendable()} and {@code entry} is the newest entry it was computed
     * from: the same index and id, so the log was not replaced since. Cheaper than comparing
     * {@link #lastId()}: a store that hands out the same entry object again needs no id at all.
     */
    public boolean computedThrough(Entry entry) {
        return tail != null && entry.index() == tail.last.index()
                && (entry == tail.last || entry.id().equals(tail.last.id()));
    }

    /** The messages to send, pinned system message and summary first. Immutable. */
    public List<ChatMessage> messages() {
        return messages;
    }

    /** The limit this view was computed for. */
    public ViewLimit limit() {
        return limit;
    }

    /**
     * The view's size in the limit's unit (messages, turns or tokens); for {@link ViewLimit#none()}
     * the number of messages.
     */
    public int size() {
        return size;
    }

    /** How many turns the view shows. */
    public int turns() {
        return turns;
    }

    /**
     * Log index of the oldest entry the view shows, or {@code -1} when it shows no log entry.
     * Entries before it are not needed by this view (a retention policy may trim them).
     */
    public long firstIndex() {
        return firstIndex;
    }

    /**
     * True when every turn in the entries given fitted within the limit and older entries (before
     * those given, and not covered by the summary) could still add turns: a caller that read only
     * the tail of the log should read further back and compute again.
     */
    public boolean needsOlderEntries() {
        return needsOlderEntries;
    }

    /** True when the view is bigger than its limit (only when the uncuttable part alone is). */
    public boolean overLimit() {
        return limit.unit() != null && size > limit.value();
    }

    /** The overflow report for {@code sessionId}, if the view is over its limit. */
    public Optional<Overflow> overflow(String sessionId) {
        return overLimit() ? Optional.of(new Overflow(sessionId, limit.unit(), limit.value(), size)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "View{" + messages.size() + " messages, " + turns + " turns, size=" + size + ", limit=" + limit
                + ", firstIndex=" + firstIndex + '}';
    }

    /**
     * What {@link ViewRules#extend} needs to extend a view: its range of a {@link TurnTrack} (turns
     * {@code [turnFrom, turnTo)}, messages up to {@code messageTo}), the running size total at its end,
     * the pinned messages and their size, and the newest entry it was computed from.
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

        Tail(TurnTrack track, int turnFrom, int turnTo, int messageTo, long total, long stateVersion,
             List<ChatMessage> pinned, long pinnedSize, Entry last) {
            this.track = track;
            this.turnFrom = turnFrom;
            this.turnTo = turnTo;
            this.messageTo = messageTo;
            this.total = total;
            this.stateVersion = stateVersion;
            this.pinned = pinned;
            this.pinnedSize = pinnedSize;
            this.last = last;
        }

        int messageFrom() {
            return track.turnStarts[turnFrom];
        }
    }
}
