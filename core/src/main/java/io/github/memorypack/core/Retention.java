package io.github.memorypack.core;

/**
 * Decides how much of a session log may be removed for good. A memory never deletes what its view
 * shows: eviction only moves the view. A retention policy is the one place where history is
 * trimmed, and a memory applies it with one more rule of its own: entries a view still needs are
 * never trimmed, whatever the policy answers. A later view that would reach further back than the
 * current one (a larger per-session limit, a shorter system message, a late tool result that makes
 * an old turn smaller) shows only what is still retained.
 *
 * <p>Policies should trim in batches (let the log grow past the bound by some margin, then trim
 * back to it), so trimming costs one store call every many turns, not one per turn.
 *
 * <p>The policies here are stateless and thread-safe; memories may call a policy from several threads
 * at once, so an implementation must be thread-safe too.
 */
@FunctionalInterface
public interface Retention {

    /**
     * Where the log may be cut.
     *
     * @param firstIndex index of the oldest retained entry
     * @param nextIndex  index the next appended entry will get; {@code nextIndex - firstIndex} entries are
     *                   retained
     * @return the index before which entries may be removed; a value {@code <= firstIndex} keeps everything
     */
    long trimBefore(long firstIndex, long nextIndex);

    /**
     * Keeps the whole log (the default of every memory).
     *
     * @return the policy that never trims
     */
    static Retention keepAll() {
        return KeepAll.INSTANCE;
    }

    /**
     * Keeps at least the last {@code entries} entries (and always whatever the view needs). The log
     * may grow to {@code entries} plus a batch of {@code max(8, entries / 4)} entries before it is
     * trimmed back to {@code entries}.
     *
     * @param entries how many of the newest entries to keep (at least 1)
     * @return a policy that keeps at least the newest {@code entries} entries
     * @throws IllegalArgumentException if {@code entries < 1}
     */
    static Retention keepLast(int entries) {
        if (entries < 1) {
            throw new IllegalArgumentException("entries must be >= 1, was " + entries);
        }
        long batch = Math.max(8, entries / 4);
        return new Retention() {
            @Override
            public long trimBefore(long firstIndex, long nextIndex) {
                return nextIndex - firstIndex >= entries + batch ? nextIndex - entries : firstIndex;
            }

            @Override
            public String toString() {
                return "Retention.keepLast(" + entries + ")";
            }
        };
    }

    /**
     * Whether this policy ever trims; memories skip all retention work when it does not.
     *
     * @return whether this policy ever trims; memories skip all retention work when it does not
     */
    default boolean trims() {
        return true;
    }
}

/** The keep-everything policy. */
enum KeepAll implements Retention {
    INSTANCE;

    @Override
    public long trimBefore(long firstIndex, long nextIndex) {
        return firstIndex;
    }

    @Override
    public boolean trims() {
        return false;
    }

    @Override
    public String toString() {
        return "Retention.keepAll()";
    }
}
