package io.github.memorypack.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The turn one thread last started in each session (by the session's {@link SendGate}), for the
 * thread's own {@link RequestScope} and for what the thread started under any scope: the session
 * used last in two fields, the others in a small map, least recently used first out, with a turn
 * that is over dropped once another session's turn starts after it. Not thread-safe: one thread
 * touches it.
 *
 * <p>Why a front slot: a thread nearly always works on one session at a time, so every lookup of a
 * call and every new turn there is a field read or write. A turn on another session moves the front
 * into the map only while it may still get more messages (it is not over), so the first turn on a
 * new session (a new memory, a new store) takes the same few steps as every later one.
 */
final class RecentTurns {

    /** Most sessions whose turns a thread remembers. */
    static final int CAPACITY = 256;

    private SendGate frontGate;
    private SendGate.RunningTurn frontTurn;
    // the other sessions; never holds frontGate
    private final Map<SendGate, SendGate.RunningTurn> others = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<SendGate, SendGate.RunningTurn> eldest) {
            return size() >= CAPACITY || eldest.getValue().over;
        }
    };

    /** The turn last started in {@code gate}'s session, running or not, or null. */
    SendGate.RunningTurn get(SendGate gate) {
        if (gate == frontGate) {
            return frontTurn;
        }
        return others.isEmpty() ? null : others.get(gate);
    }

    /** {@code turn} is the turn last started in its session. */
    void put(SendGate.RunningTurn turn) {
        SendGate gate = turn.gate;
        if (gate != frontGate) {
            if (frontGate != null && !frontTurn.over) {
                others.put(frontGate, frontTurn);
            }
            if (!others.isEmpty()) {
                others.remove(gate);
            }
            frontGate = gate;
        }
        frontTurn = turn;
    }
}
