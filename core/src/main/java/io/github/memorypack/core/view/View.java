package io.github.memorypack.core.view;

import dev.langchain4j.data.message.ChatMessage;
import java.util.Collections;
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
        this.messages = Collections.unmodifiableList(messages); // built by ViewRules for this view alone
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
        return tail == null ? -1 : tail.lastIndex;
    }

    /** Id of the entry at {@link #lastIndex()}, to tell whether the log was replaced since; null if not extendable. */
    public String lastId() {
        return tail == null ? null : tail.lastId;
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

    /** The turn structure of an extendable view: where each shown turn starts, its size and first index. */
    static final class Tail {
        final long stateVersion;
        final int pinnedCount;
        final long pinnedSize;
        final int[] offsets;
        final long[] sizes;
        final long[] firstIndices;
        final long lastIndex;
        final String lastId;

        Tail(long stateVersion, int pinnedCount, long pinnedSize, int[] offsets, long[] sizes, long[] firstIndices,
             long lastIndex, String lastId) {
            this.stateVersion = stateVersion;
            this.pinnedCount = pinnedCount;
            this.pinnedSize = pinnedSize;
            this.offsets = offsets;
            this.sizes = sizes;
            this.firstIndices = firstIndices;
            this.lastIndex = lastIndex;
            this.lastId = lastId;
        }
    }
}
