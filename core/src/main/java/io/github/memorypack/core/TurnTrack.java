package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shown messages and turns of a chain of extended views, in arrays that only ever grow at the
 * end, so that {@link ViewRules#extend} costs O(appended + evicted messages) rather than copies of
 * the whole window and its per-turn data.
 *
 * <p>Every view of a chain is a range of one track: turns {@code [turnFrom, turnTo)} and messages
 * from the first of those turns' start up to {@code messageTo}. A slot, once written, never
 * changes, so a view's range stays valid while later views append after it; evicting a turn only
 * moves the next view's start. Per-turn sizes are kept as running totals ({@link #sizeBefore}), so
 * a range's size is one subtraction and nothing is ever re-summed.
 *
 * <p>Only a view that ends where the track ends may append in place ({@link #reserve}); any other
 * (an older view extended again, or one whose track is full) gets a new track holding a copy of
 * its own range. A new track has room for twice what it holds, so over time the copies cost O(1)
 * per appended message.
 */
final class TurnTrack {

    /** The messages of the turns, in view order. */
    final ChatMessage[] messages;
    /** The log entry behind each message (see {@link View#sources()}). */
    final Entry[] sources;
    /** Position in {@link #messages} where each turn starts (its user message). */
    final int[] turnStarts;
    /** Log index of each turn's user message. */
    final long[] turnFirstIndices;
    /** Total size of the turns before each turn, in the view limit's unit, counted from any fixed origin. */
    final long[] sizeBefore;
    // how much of the arrays is written or reserved by some view: messages in the high 32 bits,
    // turns in the low ones, so one compare-and-set both checks that a view ends here and reserves
    private final AtomicLong counts = new AtomicLong();

    private TurnTrack(int messageCapacity, int turnCapacity) {
        this.messages = new ChatMessage[messageCapacity];
        this.sources = new Entry[messageCapacity];
        this.turnStarts = new int[turnCapacity];
        this.turnFirstIndices = new long[turnCapacity];
        this.sizeBefore = new long[turnCapacity];
    }

    /**
     * A track holding {@code messages} (a rendered view's messages after {@code skip} pinned ones)
     * and its turns: turn t starts at {@code offsets[t] - skip}, has the first log index
     * {@code firstIndices[t]} and the size {@code sizes[t]}. The running totals start at 0.
     */
    static TurnTrack of(List<ChatMessage> messages, List<Entry> sources, int skip, int[] offsets, long[] firstIndices,
                        long[] sizes) {
        int turns = offsets.length;
        TurnTrack track = new TurnTrack(capacity(messages.size() - skip), capacity(turns));
        for (int i = skip; i < messages.size(); i++) {
            track.messages[i - skip] = messages.get(i);
            track.sources[i - skip] = sources.get(i);
        }
        long total = 0;
        for (int t = 0; t < turns; t++) {
            track.turnStarts[t] = offsets[t] - skip;
            track.turnFirstIndices[t] = firstIndices[t];
            track.sizeBefore[t] = total;
            total += sizes[t];
        }
        track.counts.set(counts(messages.size() - skip, turns));
        return track;
    }

    /**
     * Room after a view's range for {@code moreMessages} messages and {@code moreTurns} turns, which
     * then belong to the caller alone: this track when the view ends where the track ends and the
     * room is there, otherwise a new track whose first turn is the view's {@code turnFrom} (so the
     * caller must rebase its positions: turns by {@code turnFrom}, messages by that turn's start).
     */
    TurnTrack reserve(int turnFrom, int turnTo, int messageTo, int moreMessages, int moreTurns) {
        if (messageTo + moreMessages <= messages.length && turnTo + moreTurns <= turnStarts.length
                && counts.compareAndSet(counts(messageTo, turnTo), counts(messageTo + moreMessages, turnTo + moreTurns))) {
            return this;
        }
        // the view's own range was written before the view was published, so it is safe to read here
        int messageFrom = turnStarts[turnFrom];
        int liveMessages = messageTo - messageFrom;
        int liveTurns = turnTo - turnFrom;
        TurnTrack copy = new TurnTrack(capacity(liveMessages + moreMessages), capacity(liveTurns + moreTurns));
        System.arraycopy(messages, messageFrom, copy.messages, 0, liveMessages);
        System.arraycopy(sources, messageFrom, copy.sources, 0, liveMessages);
        for (int t = 0; t < liveTurns; t++) {
            copy.turnStarts[t] = turnStarts[turnFrom + t] - messageFrom;
        }
        System.arraycopy(turnFirstIndices, turnFrom, copy.turnFirstIndices, 0, liveTurns);
        System.arraycopy(sizeBefore, turnFrom, copy.sizeBefore, 0, liveTurns);
        copy.counts.set(counts(liveMessages + moreMessages, liveTurns + moreTurns));
        return copy;
    }

    private static long counts(int messages, int turns) {
        return (long) messages << 32 | turns;
    }

    /** An immutable list of {@code pinned} followed by the messages in {@code [from, to)}. */
    List<ChatMessage> list(List<ChatMessage> pinned, int from, int to) {
        return new Range<>(pinned, messages, from, to);
    }

    /** An immutable list of {@code pinned} nulls followed by the sources in {@code [from, to)}. */
    List<Entry> sourceList(int pinned, int from, int to) {
        return new Range<>(pinned == 0 ? List.of() : java.util.Collections.nCopies(pinned, null), sources, from, to);
    }

    private static int capacity(int needed) {
        return needed > (Integer.MAX_VALUE - 16) / 2 ? Integer.MAX_VALUE - 8 : needed * 2 + 16;
    }

    /** Pinned messages, then a range of a track: shares the track's array, which never changes in the range. */
    private static final class Range<T> extends AbstractList<T> implements RandomAccess {

        private final List<T> pinned;
        private final T[] messages;
        private final int from;
        private final int size;

        Range(List<T> pinned, T[] messages, int from, int to) {
            this.pinned = pinned;
            this.messages = messages;
            this.from = from;
            this.size = pinned.size() + to - from;
        }

        @Override
        public T get(int index) {
            if (index < 0 || index >= size) {
                throw new IndexOutOfBoundsException("index " + index + " out of bounds for length " + size);
            }
            int pinnedCount = pinned.size();
            return index < pinnedCount ? pinned.get(index) : messages[from + index - pinnedCount];
        }

        @Override
        public int size() {
            return size;
        }

        // what ArrayList's copy constructor and addAll call: one bulk copy instead of an element-wise walk
        @Override
        public Object[] toArray() {
            Object[] array = new Object[size];
            int pinnedCount = pinned.size();
            for (int i = 0; i < pinnedCount; i++) {
                array[i] = pinned.get(i);
            }
            System.arraycopy(messages, from, array, pinnedCount, size - pinnedCount);
            return array;
        }
    }
}
