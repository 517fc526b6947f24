package io.github.memorypack.core;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link SessionStore} in this process's memory: fast, thread-safe, gone when the process ends.
 * Use it for tests, demos and single-instance apps that need no persistence. Each session is
 * guarded by its own lock, so sessions never wait for each other.
 */
public final class InMemorySessionStore implements SessionStore {

    private final Clock clock;
    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();

    private InMemorySessionStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * A store whose timestamps come from the system UTC clock.
     *
     * @return a store whose timestamps come from the system UTC clock
     */
    public static InMemorySessionStore create() {
        return new InMemorySessionStore(Clock.systemUTC());
    }

    /**
     * A store whose timestamps come from {@code clock}.
     *
     * @param clock where entry timestamps come from
     * @return a store whose timestamps come from {@code clock}
     */
    public static InMemorySessionStore create(Clock clock) {
        return new InMemorySessionStore(clock);
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        Session session = find(sessionId);
        SessionIds.checkIdempotencyKey(idempotencyKey);
        List<NewEntry> batch = List.copyOf(entries); // no copy when already immutable, like List.of(entry)
        if (batch.isEmpty()) { // stores nothing, creates no session: only a stored key's entries to give back
            if (session == null || idempotencyKey == null) {
                return List.of();
            }
            synchronized (session) {
                List<Entry> earlier = session.deleted ? null : session.byKey.get(idempotencyKey);
                return earlier == null ? List.of() : earlier;
            }
        }
        while (true) {
            if (session == null) {
                session = sessions.computeIfAbsent(sessionId, id -> new Session());
            }
            synchronized (session) {
                if (session.deleted) {
                    session = null;
                    continue; // deleted under us: append to the session that replaces it
                }
                if (idempotencyKey != null) {
                    List<Entry> earlier = session.byKey.get(idempotencyKey);
                    if (earlier != null) {
                        return earlier;
                    }
                }
                Instant now = clock.instant();
                List<Entry> result;
                if (batch.size() == 1) { // what a memory's add() appends: no list to build and wrap
                    Entry entry = session.newEntry(now, batch.get(0), idempotencyKey);
                    session.entries.add(entry);
                    result = List.of(entry);
                } else {
                    List<Entry> stored = new ArrayList<>(batch.size());
                    for (NewEntry e : batch) {
                        stored.add(session.newEntry(now, e, idempotencyKey));
                    }
                    session.entries.addAll(stored);
                    result = Collections.unmodifiableList(stored);
                }
                if (idempotencyKey != null) {
                    session.byKey.put(idempotencyKey, result);
                }
                return result;
            }
        }
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        Session session = find(sessionId);
        SessionIds.checkReadRange(fromIndex, maxCount);
        if (session == null) {
            return List.of();
        }
        synchronized (session) {
            int size = session.entries.size();
            long first = session.nextIndex - size;
            int from = (int) Math.max(0, Math.min(size, fromIndex - first));
            int to = (int) Math.min(size, (long) from + maxCount);
            return List.copyOf(session.entries.subList(from, to));
        }
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        Session session = find(sessionId);
        SessionIds.checkReadCount(count);
        if (session == null) {
            return List.of();
        }
        synchronized (session) {
            int size = session.entries.size();
            return List.copyOf(session.entries.subList(Math.max(0, size - count), size));
        }
    }

    @Override
    public long nextIndex(String sessionId) {
        Session session = find(sessionId);
        if (session == null) {
            return 0;
        }
        synchronized (session) {
            return session.nextIndex;
        }
    }

    @Override
    public SessionState state(String sessionId) {
        Session session = find(sessionId);
        if (session == null) {
            return SessionState.EMPTY;
        }
        return session.state; // volatile: an immutable value, written under the lock, read without it
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        SessionIds.validate(sessionId);
        Objects.requireNonNull(newState, "newState");
        while (true) {
            // an unknown session is at version 0: any other expected version fails without creating it
            Session session = expectedVersion == 0
                    ? sessions.computeIfAbsent(sessionId, id -> new Session())
                    : sessions.get(sessionId);
            if (session == null) {
                return Optional.empty();
            }
            synchronized (session) {
                if (session.deleted) {
                    continue;
                }
                if (session.state.version() != expectedVersion) {
                    return Optional.empty();
                }
                session.state = newState.withVersion(expectedVersion + 1);
                return Optional.of(session.state);
            }
        }
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        SessionIds.validate(sessionId);
        List<NewEntry> batch = List.copyOf(entries);
        while (true) {
            Session session = sessions.computeIfAbsent(sessionId, id -> new Session());
            synchronized (session) {
                if (session.deleted) {
                    continue;
                }
                session.entries.clear();
                session.byKey.clear();
                Instant now = clock.instant();
                for (NewEntry e : batch) {
                    session.entries.add(session.newEntry(now, e, null));
                }
                return;
            }
        }
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        Session session = find(sessionId);
        if (session == null) {
            return;
        }
        synchronized (session) {
            int size = session.entries.size();
            long first = session.nextIndex - size;
            int drop = (int) Math.max(0, Math.min(size, beforeIndex - first));
            if (drop == 0) {
                return;
            }
            List<Entry> dropped = session.entries.subList(0, drop);
            long kept = first + drop;
            for (Entry e : dropped) {
                // a key is the session's while any entry of its batch is kept: a retry gets the kept part
                e.idempotencyKey().ifPresent(key -> session.byKey.computeIfPresent(key, (k, batch) -> {
                    List<Entry> rest = batch.subList((int) Math.max(0, Math.min(batch.size(),
                            kept - batch.get(0).index())), batch.size());
                    return rest.isEmpty() ? null : List.copyOf(rest);
                }));
            }
            dropped.clear();
            session.entries.trimToSize();
        }
    }

    @Override
    public List<String> sessions() {
        List<String> ids = new ArrayList<>(sessions.keySet());
        Collections.sort(ids);
        return ids;
    }

    @Override
    public void delete(String sessionId) {
        Session session = find(sessionId);
        if (session == null) {
            return;
        }
        synchronized (session) {
            session.deleted = true;
            sessions.remove(sessionId, session);
        }
    }

    /**
     * The session stored under {@code sessionId}, or null after validating the id. A stored session's
     * id was validated when it was created, and validity depends only on the characters, so an id
     * equal to a stored one needs no second check: the lookup the call needs anyway stands in for it.
     */
    private Session find(String sessionId) {
        Session session = sessionId == null ? null : sessions.get(sessionId);
        if (session == null) {
            SessionIds.validate(sessionId);
        }
        return session;
    }

    /** One session's log and state; guarded by its own monitor. */
    private static final class Session {
        final ArrayList<Entry> entries = new ArrayList<>();
        final Map<String, List<Entry>> byKey = new HashMap<>();
        long nextIndex;
        volatile SessionState state = SessionState.EMPTY;
        boolean deleted;

        /** The next entry of this log, with a fresh random id. */
        Entry newEntry(Instant now, NewEntry entry, String idempotencyKey) {
            return new Entry(nextIndex++, Ids.randomUuidHigh(), Ids.randomUuidLow(), now, entry, idempotencyKey);
        }
    }
}
