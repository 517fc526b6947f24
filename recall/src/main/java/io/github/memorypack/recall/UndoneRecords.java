package io.github.memorypack.recall;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The set and clear records of a session's log that were undone, as core's {@code Dialogue} reads them:
 * a memory whose {@code set()} or {@code clear()} could not write the state supersedes its records again
 * with a later set record (core's {@code Appender.undo}): an <em>undo record</em>, a set record that names
 * an earlier set or clear record. Newest first, as {@code Dialogue} does: a set record that an undo record
 * not itself undone names supersedes nothing, and neither do the entries that undo record names; a clear
 * record that any later set record names clears nothing, unless the state says it was cleared there after
 * all (the state write went through though it reported a failure).
 *
 * <p>The index applies records in log order, so it meets an undo record after the record it undoes: it
 * keeps the log indices of the recent set and clear records it read (reading the log for older ones, a rare
 * path: a set record naming entries before them, after a restart), and when an undo record changes what is
 * undone, the session's index is built again from the log with the undo records known, so it holds what an
 * index built in one go by {@code Dialogue}'s rules holds. Nothing here runs for an entry that is not a record.
 *
 * <p>Not thread-safe: used under the session index's lock.
 */
final class UndoneRecords {

    /** How many recent record indices are kept (older ones are read back from the log when named). */
    private static final int RECENT = 1024;

    /** The set and clear records read from {@link #knownFrom} on, by log index: true for a clear record. */
    private final TreeMap<Long, Boolean> records = new TreeMap<>();
    /** Every set and clear record from this log index on is in {@link #records}. */
    private long knownFrom;
    /** The undo records known, by log index: the ranges each names. Kept across the rebuild they cause. */
    private final TreeMap<Long, List<long[]>> undos = new TreeMap<>();
    /** Clear records an undo record names that the state holds all the same (cleared there). */
    private final Set<Long> heldClears = new HashSet<>();
    /** What the undo records not themselves undone name, and what all of them name (see {@link #compute}). */
    private List<long[]> accepted = List.of();
    private List<long[]> named = List.of();

    /** Forgets everything: the index starts reading a log (maybe another one) from its start. */
    void reset() {
        records.clear();
        knownFrom = 0;
        undos.clear();
        heldClears.clear();
        compute();
    }

    /** After a restart at a commit: the records before {@code next} were read by another process (read them back). */
    void restored(long next) {
        reset();
        knownFrom = next;
    }

    /** The index is built again from the start of the same log: the undo records known stay known. */
    void startOver() {
        records.clear();
        knownFrom = 0;
    }

    /** True if there is nothing undone (the usual case: a cheap check before the others). */
    boolean none() {
        return undos.isEmpty();
    }

    /** True if an undo record that counts names the entry at {@code index} (it is not part of the conversation). */
    boolean superseded(long index) {
        return covers(accepted, index);
    }

    /** True if the clear record at {@code index} was undone (it clears nothing). */
    boolean clearUndone(long index) {
        return covers(named, index) && !heldClears.contains(index);
    }

    /** Records that the index read the clear record at {@code index}. */
    void clearRead(long index) {
        remember(index, true);
    }

    /**
     * Records that the index read the set record at {@code index} naming {@code ranges}. Returns true if it
     * is an undo record not known before that changes which records count: what the index applied so far
     * is then wrong and the index must be built again (with it known).
     */
    boolean setRead(long index, List<long[]> ranges, SessionStore store, String sessionId) {
        remember(index, false);
        if (undos.containsKey(index) || ranges.isEmpty()) {
            return false;
        }
        Map<Long, Boolean> records = namedRecords(ranges, store, sessionId);
        if (records.isEmpty()) {
            return false; // an ordinary set(): it names conversation entries only
        }
        Map<Long, Boolean> before = new TreeMap<>();
        boolean namesUndo = false;
        for (Map.Entry<Long, Boolean> record : records.entrySet()) {
            before.put(record.getKey(), counts(record.getKey(), record.getValue()));
            namesUndo |= undos.containsKey(record.getKey());
        }
        if (records.containsValue(Boolean.TRUE)) {
            long clearedAt = LogFormat.clearedAt(store.state(sessionId));
            for (Map.Entry<Long, Boolean> record : records.entrySet()) {
                if (record.getValue() && record.getKey() <= clearedAt) {
                    heldClears.add(record.getKey());
                }
            }
        }
        undos.put(index, ranges);
        compute();
        if (namesUndo) {
            return true; // an undo undone: what that one named counts again
        }
        for (Map.Entry<Long, Boolean> record : records.entrySet()) {
            if (before.get(record.getKey()) != counts(record.getKey(), record.getValue())) {
                return true;
            }
        }
        return false;
    }

    private boolean counts(long index, boolean clear) {
        return clear ? !clearUndone(index) : !superseded(index);
    }

    /** The set and clear records among the entries {@code ranges} names (true: a clear record), by log index. */
    private Map<Long, Boolean> namedRecords(List<long[]> ranges, SessionStore store, String sessionId) {
        Map<Long, Boolean> found = new TreeMap<>();
        for (long[] range : ranges) {
            found.putAll(records.subMap(range[0], true, range[1], true));
            // before the records known (read by another process, or long ago): from the log
            long from = range[0];
            long to = Math.min(range[1], knownFrom - 1);
            while (from <= to) {
                List<Entry> batch = store.read(sessionId, from, (int) Math.min(SessionIndex.READ_BATCH, to - from + 1));
                if (batch.isEmpty()) {
                    break;
                }
                for (Entry entry : batch) {
                    if (entry.index() > to) {
                        break;
                    }
                    String kind = LogFormat.record(entry.message());
                    if (LogFormat.CLEAR.equals(kind) || LogFormat.SET.equals(kind)) {
                        found.put(entry.index(), LogFormat.CLEAR.equals(kind));
                    }
                }
                from = batch.get(batch.size() - 1).index() + 1;
            }
        }
        return found;
    }

    private void remember(long index, boolean clear) {
        if (index < knownFrom) {
            return;
        }
        records.put(index, clear);
        if (records.size() > RECENT) {
            knownFrom = records.pollFirstEntry().getKey() + 1;
        }
    }

    /** Newest first: an undo record counts unless a later one that counts names it. */
    private void compute() {
        List<long[]> accepted = new ArrayList<>();
        List<long[]> named = new ArrayList<>();
        for (Map.Entry<Long, List<long[]>> undo : undos.descendingMap().entrySet()) {
            named.addAll(undo.getValue());
            if (!covers(accepted, undo.getKey())) {
                accepted.addAll(undo.getValue());
            }
        }
        this.accepted = accepted;
        this.named = named;
    }

    private static boolean covers(List<long[]> ranges, long index) {
        for (long[] range : ranges) {
            if (index >= range[0] && index <= range[1]) {
                return true;
            }
        }
        return false;
    }
}
