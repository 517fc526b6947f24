package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * {@link MemoryOptions#sessionStore(ChatMemoryStore)}: runs Memory Pack on any plain LangChain4j {@link ChatMemoryStore} (for example a community store
 * backed by a database), by keeping the log and its bookkeeping inside the messages that store
 * already holds.
 *
 * <h2>How it stores a session</h2>
 * The wrapped store's list for memory id {@code sessionId} (always the validated {@code String}) is
 * one hidden {@link CustomMessage} record followed by the session's retained messages, oldest first.
 * The record holds the next index, the {@link SessionState} and, per message, its entry id,
 * timestamp, token count, metadata and idempotency key, so all of it survives a restart together
 * with the messages. The record is never returned by any read of this adapter. A list written by
 * other code (no record) is adopted as entries {@code 0..n-1} with name-based ids, timestamp
 * {@link Instant#EPOCH} and unknown token counts; the first write through the adapter records them.
 *
 * <h2>Limits — what a plain {@code ChatMemoryStore} cannot do</h2>
 * <ul>
 *   <li>Every write (append, state update, trim, replace) rewrites the whole list with
 *       {@link ChatMemoryStore#updateMessages}, because that is the only write the wrapped store
 *       offers; an append costs I/O in proportion to the session's size, not the new entries.</li>
 *   <li>Atomicity and "no lost appends" hold only between callers of <em>this adapter instance</em>
 *       (per-session locks in this process). Two processes, or two adapters over one store, can
 *       overwrite each other (last writer wins). An append is as atomic as the wrapped store's
 *       {@code updateMessages}.</li>
 *   <li>{@link #sessions()} knows only sessions this instance has written, or read while they carried
 *       the record, since it was created: {@code ChatMemoryStore} cannot list its ids.</li>
 *   <li>Code that changes the list behind the adapter's back breaks the match between messages and
 *       record; the adapter then throws {@link StoreException} rather than guess.</li>
 * </ul>
 * Use a native backend (file, Redis) when these limits matter.
 */
final class ChatMemoryStoreAdapter implements SessionStore {

    /** Attribute that marks the hidden record; its value is the record format version. */
    static final String RECORD = "memory-pack.record";
    private static final String NEXT = "next";
    private static final String STATE = "state";
    private static final String ENTRIES = "entries";

    private final ChatMemoryStore wrapped;
    private final Clock clock;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private final Set<String> known = new ConcurrentSkipListSet<>();

    private ChatMemoryStoreAdapter(ChatMemoryStore wrapped, Clock clock) {
        this.wrapped = Objects.requireNonNull(wrapped, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A session store over {@code store}, with timestamps from the system UTC clock. */
    static SessionStore of(ChatMemoryStore store) {
        return of(store, Clock.systemUTC());
    }

    /** A session store over {@code store} (not a {@link SessionStore}), with timestamps from {@code clock}. */
    static SessionStore of(ChatMemoryStore store, Clock clock) {
        if (store instanceof SessionStore) {
            throw new IllegalArgumentException("store is already a SessionStore; use it directly");
        }
        return new ChatMemoryStoreAdapter(store, clock);
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        SessionIds.validate(sessionId);
        SessionIds.checkIdempotencyKey(idempotencyKey);
        List<NewEntry> batch = List.copyOf(entries);
        synchronized (lock(sessionId)) {
            Log log = load(sessionId);
            if (idempotencyKey != null) {
                List<Entry> earlier = new ArrayList<>();
                for (int i = 0; i < log.meta.size(); i++) {
                    if (idempotencyKey.equals(log.meta.get(i).get("key"))) {
                        earlier.add(log.entry(i));
                    }
                }
                if (!earlier.isEmpty()) {
                    return List.copyOf(earlier);
                }
            }
            if (batch.isEmpty()) {
                return List.of();
            }
            Log next = log.plus(batch, idempotencyKey, clock.instant());
            store(sessionId, next);
            return List.copyOf(next.entries(log.meta.size(), next.meta.size()));
        }
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadRange(fromIndex, maxCount);
        Log log = locked(sessionId);
        int size = log.meta.size();
        int from = (int) Math.max(0, Math.min(size, fromIndex - log.first()));
        return log.entries(from, (int) Math.min(size, (long) from + maxCount));
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadCount(count);
        Log log = locked(sessionId);
        return log.entries(Math.max(0, log.meta.size() - count), log.meta.size());
    }

    @Override
    public long nextIndex(String sessionId) {
        SessionIds.validate(sessionId);
        return locked(sessionId).next;
    }

    @Override
    public SessionState state(String sessionId) {
        SessionIds.validate(sessionId);
        return locked(sessionId).state;
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        SessionIds.validate(sessionId);
        Objects.requireNonNull(newState, "newState");
        synchronized (lock(sessionId)) {
            Log log = load(sessionId);
            if (log.state.version() != expectedVersion) {
                return Optional.empty();
            }
            SessionState stored = newState.withVersion(expectedVersion + 1);
            store(sessionId, new Log(log.next, stored, log.meta, log.messages));
            return Optional.of(stored);
        }
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        SessionIds.validate(sessionId);
        List<NewEntry> batch = List.copyOf(entries);
        synchronized (lock(sessionId)) {
            Log log = load(sessionId);
            store(sessionId, new Log(log.next, log.state, List.of(), List.of()).plus(batch, null, clock.instant()));
        }
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        SessionIds.validate(sessionId);
        synchronized (lock(sessionId)) {
            Log log = load(sessionId);
            int size = log.meta.size();
            int drop = (int) Math.max(0, Math.min(size, beforeIndex - log.first()));
            if (drop > 0) {
                store(sessionId, new Log(log.next, log.state, List.copyOf(log.meta.subList(drop, size)),
                        log.messages.subList(drop, size)));
            }
        }
    }

    @Override
    public List<String> sessions() {
        List<String> ids = new ArrayList<>();
        for (String id : known) {
            synchronized (lock(id)) {
                if (!wrapped.getMessages(id).isEmpty()) {
                    ids.add(id);
                }
            }
        }
        return ids;
    }

    @Override
    public void delete(String sessionId) {
        SessionIds.validate(sessionId);
        synchronized (lock(sessionId)) {
            wrapped.deleteMessages(sessionId);
            known.remove(sessionId);
        }
    }

    private Object lock(String sessionId) {
        // one monitor per session id ever used; never removed, so two threads never hold different ones
        return locks.computeIfAbsent(sessionId, id -> new Object());
    }

    private Log locked(String sessionId) {
        synchronized (lock(sessionId)) {
            return load(sessionId);
        }
    }

    private Log load(String sessionId) {
        // only read, never changed: every write hands the wrapped store a new list
        List<ChatMessage> stored = wrapped.getMessages(sessionId);
        if (stored.isEmpty() || !isRecord(stored.get(0))) {
            List<Map<String, Object>> meta = new ArrayList<>(stored.size());
            for (int i = 0; i < stored.size(); i++) {
                String name = sessionId + '/' + i;
                meta.add(Map.of("id", UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString(),
                        "ts", Instant.EPOCH.toString(), "tokens", String.valueOf(Entry.UNKNOWN_TOKENS)));
            }
            return new Log(stored.size(), SessionState.EMPTY, meta, stored);
        }
        known.add(sessionId);
        try {
            Map<String, Object> record = ((CustomMessage) stored.get(0)).attributes();
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> meta = (List<Map<String, Object>>) record.get(ENTRIES);
            Object state = record.get(STATE);
            Log log = new Log(Long.parseLong(String.valueOf(record.get(NEXT))),
                    state == null ? SessionState.EMPTY : EntryCodec.decodeState((String) state),
                    meta, stored.subList(1, stored.size()));
            if (meta.size() != log.messages.size()) {
                throw new StoreException("session '" + sessionId + "' holds " + log.messages.size()
                        + " messages but a record of " + meta.size() + "; it was changed without this adapter");
            }
            return log;
        } catch (RuntimeException e) {
            throw e instanceof StoreException ? e : new StoreException("unreadable record in session '" + sessionId + "'", e);
        }
    }

    private void store(String sessionId, Log log) {
        Map<String, Object> record = new HashMap<>();
        record.put(RECORD, "1");
        record.put(NEXT, String.valueOf(log.next));
        record.put(ENTRIES, log.meta);
        if (!log.state.equals(SessionState.EMPTY)) {
            record.put(STATE, EntryCodec.encodeState(log.state));
        }
        List<ChatMessage> list = new ArrayList<>(log.messages.size() + 1);
        list.add(new CustomMessage(record));
        list.addAll(log.messages);
        try {
            wrapped.updateMessages(sessionId, list);
        } catch (RuntimeException e) {
            throw new StoreException("could not write session '" + sessionId + "'", e);
        }
        known.add(sessionId);
    }

    private static boolean isRecord(ChatMessage message) {
        return message instanceof CustomMessage && ((CustomMessage) message).attributes().containsKey(RECORD);
    }

    /** A session as the wrapped store holds it: messages and their per-entry record, in step. */
    private static final class Log {
        final long next;
        final SessionState state;
        final List<Map<String, Object>> meta;
        final List<ChatMessage> messages;

        Log(long next, SessionState state, List<Map<String, Object>> meta, List<ChatMessage> messages) {
            this.next = next;
            this.state = state;
            this.meta = meta;
            this.messages = messages;
        }

        long first() {
            return next - meta.size();
        }

        Log plus(List<NewEntry> batch, String key, Instant now) {
            List<Map<String, Object>> newMeta = new ArrayList<>(meta.size() + batch.size());
            List<ChatMessage> newMessages = new ArrayList<>(messages.size() + batch.size());
            newMeta.addAll(meta);
            newMessages.addAll(messages);
            for (NewEntry e : batch) {
                Map<String, Object> m = new HashMap<>();
                m.put("id", Entry.newId());
                m.put("ts", now.toString());
                m.put("tokens", String.valueOf(e.tokenCount()));
                if (key != null) {
                    m.put("key", key);
                }
                if (!e.metadata().isEmpty()) {
                    m.put("meta", e.metadata());
                }
                newMeta.add(Map.copyOf(m));
                newMessages.add(e.message());
            }
            return new Log(next + batch.size(), state, newMeta, newMessages);
        }

        Entry entry(int i) {
            Map<String, Object> m = meta.get(i);
            @SuppressWarnings("unchecked")
            Map<String, String> metadata = (Map<String, String>) m.get("meta");
            return new Entry(first() + i, (String) m.get("id"), Instant.parse((String) m.get("ts")),
                    Integer.parseInt((String) m.get("tokens")), messages.get(i), metadata, (String) m.get("key"));
        }

        List<Entry> entries(int from, int to) {
            List<Entry> list = new ArrayList<>(Math.max(0, to - from));
            for (int i = from; i < to; i++) {
                list.add(entry(i));
            }
            return List.copyOf(list);
        }
    }
}
