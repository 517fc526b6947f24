package io.github.memorypack.redis;

import static io.github.memorypack.redis.RedisRecords.bytes;
import static io.github.memorypack.redis.RedisRecords.keyField;
import static io.github.memorypack.redis.RedisRecords.text;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.UnifiedJedis;

/**
 * Each {@link RedisSessionStore} operation as Redis sees it: the script it runs, its keys and
 * arguments (TTL, deduplication window, write token), and how the reply is decoded back into
 * entries and states. The store checks its arguments before any of this runs; {@link RedisCalls}
 * retries the calls, {@link RedisRecords} encodes what they carry, {@link RedisKeys} names the keys.
 */
final class RedisOperations {

    /** Keys asked per SCAN call. */
    static final int SCAN_COUNT = 500;

    /** No log gets near this many entries; larger indices are clamped so Lua's doubles stay exact. */
    private static final long MAX_INDEX = 1L << 50;
    private static final byte[] VERSION = bytes("version");
    private static final byte[] JSON = bytes("json");
    private static final byte[] CRC = bytes("crc");
    private static final byte[] EMPTY = new byte[0];

    private final RedisKeys keys;
    private final byte[] ttlMillis;
    private final byte[] windowMillis;
    private final boolean writeTokens;
    private final Clock clock;
    private final RedisCalls calls;

    RedisOperations(UnifiedJedis jedis, RedisSessionStore.Builder b) {
        this.keys = new RedisKeys(b.keyPrefix);
        this.ttlMillis = bytes(Long.toString(b.ttl == null ? 0 : b.ttl.toMillis()));
        this.windowMillis = bytes(Long.toString(b.deduplicationWindow.toMillis()));
        this.writeTokens = b.writeTokens;
        this.clock = b.clock;
        this.calls = new RedisCalls(jedis, b.retryAttempts, b.retryDuration, b.replicas,
                b.replicaTimeout == null ? 0 : b.replicaTimeout.toMillis());
    }

    String keyPrefix() {
        return keys.prefix();
    }

    long retries() {
        return calls.retries();
    }

    List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        List<NewEntry> batch = List.copyOf(entries);
        Instant now = clock.instant();
        List<Entry> drafts = new ArrayList<>(batch.size());
        List<byte[]> args = new ArrayList<>(batch.size() + 4);
        for (NewEntry e : batch) {
            drafts.add(new Entry(0, Entry.newId(), now, e.tokenCount(), e.message(), e.metadata(), idempotencyKey));
        }
        // the first entry's id is random and unique to this call: it serves as the call's write token
        String token = idempotencyKey == null && writeTokens && !drafts.isEmpty() ? drafts.get(0).id() : null;
        args.add(ttlMillis);
        args.add(windowMillis);
        args.add(token == null ? EMPTY : bytes(token));
        args.add(idempotencyKey == null ? EMPTY : keyField(idempotencyKey));
        for (Entry draft : drafts) {
            args.add(bytes(RedisRecords.tail(draft)));
        }
        List<?> reply = (List<?>) calls.write("append", sessionId, RedisScripts.APPEND, writeKeys(sessionId), args,
                r -> true);
        long first = Long.parseLong(text(reply.get(1)));
        if (((Number) reply.get(0)).longValue() == 0) { // the caller's key was used before: what it stored then
            return decodeAll(sessionId, first, (List<?>) reply.get(2));
        }
        List<Entry> stored = new ArrayList<>(drafts.size());
        for (int i = 0; i < drafts.size(); i++) {
            Entry d = drafts.get(i);
            stored.add(new Entry(first + i, d.id(), d.timestamp(), d.tokenCount(), d.message(), d.metadata(),
                    idempotencyKey));
        }
        return List.copyOf(stored);
    }

    List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        if (maxCount == 0) {
            return List.of();
        }
        return readRecords("read", sessionId, RedisScripts.READ,
                List.of(bytes(Long.toString(Math.min(fromIndex, MAX_INDEX))), bytes(Integer.toString(maxCount))));
    }

    List<Entry> readLast(String sessionId, int count) {
        if (count == 0) {
            return List.of();
        }
        return readRecords("readLast", sessionId, RedisScripts.READ_LAST, List.of(bytes(Integer.toString(count))));
    }

    long nextIndex(String sessionId) {
        List<byte[]> readKeys = bytes(keys.logAndMeta(sessionId));
        Object next = calls.read("nextIndex", sessionId, j -> RedisScripts.NEXT_INDEX.run(j, readKeys, List.of()));
        return Long.parseLong(text(next));
    }

    SessionState state(String sessionId) {
        String key = keys.key(sessionId, RedisKeys.STATE);
        byte[] stateKey = bytes(key);
        List<byte[]> fields = calls.read("state", sessionId, j -> j.hmget(stateKey, VERSION, JSON, CRC));
        return RedisRecords.decodeState(fields.get(0), fields.get(1), fields.get(2), "Redis hash " + key);
    }

    Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        SessionState stored = newState.withVersion(expectedVersion + 1);
        String json = EntryCodec.encodeState(stored);
        List<byte[]> args = List.of(ttlMillis, windowMillis, newToken(), bytes(Long.toString(expectedVersion)),
                bytes(Long.toString(stored.version())), bytes(json), bytes(EntryCodec.checksum(json)));
        Object done = calls.write("compareAndSetState", sessionId, RedisScripts.COMPARE_AND_SET_STATE,
                writeKeys(sessionId), args, RedisOperations::positive);
        return positive(done) ? Optional.of(stored) : Optional.empty();
    }

    void replace(String sessionId, List<NewEntry> entries) {
        List<NewEntry> batch = List.copyOf(entries);
        Instant now = clock.instant();
        List<byte[]> args = new ArrayList<>(batch.size() + 3);
        args.add(ttlMillis);
        args.add(windowMillis);
        args.add(newToken());
        for (NewEntry e : batch) {
            args.add(bytes(RedisRecords.tail(
                    new Entry(0, Entry.newId(), now, e.tokenCount(), e.message(), e.metadata(), null))));
        }
        calls.write("replace", sessionId, RedisScripts.REPLACE, writeKeys(sessionId), args, r -> true);
    }

    void trim(String sessionId, long beforeIndex) {
        List<byte[]> args = List.of(ttlMillis, windowMillis, newToken(),
                bytes(Long.toString(Math.min(beforeIndex, MAX_INDEX))));
        calls.write("trim", sessionId, RedisScripts.TRIM, writeKeys(sessionId), args, RedisOperations::positive);
    }

    List<String> sessions() {
        return calls.read("sessions", null, j -> {
            Set<String> ids = new TreeSet<>(); // a cluster scan visits replicas too: dedupe
            ScanIteration scan = j.scanIteration(SCAN_COUNT, keys.metaPattern());
            while (!scan.isIterationCompleted()) {
                for (String key : scan.nextBatchList()) {
                    String id = keys.sessionIdOfMetaKey(key);
                    if (id != null) {
                        ids.add(id);
                    }
                }
            }
            if (!(j instanceof JedisCluster)) {
                return List.copyOf(ids);
            }
            // a replica may still hold a session its primary just deleted: the primary decides
            List<String> live = new ArrayList<>(ids.size());
            for (String id : ids) {
                if (j.exists(keys.key(id, RedisKeys.META))) {
                    live.add(id);
                }
            }
            return List.copyOf(live);
        });
    }

    void delete(String sessionId) {
        calls.write("delete", sessionId, RedisScripts.DELETE, writeKeys(sessionId),
                List.of(ttlMillis, windowMillis, newToken()), r -> true);
    }

    private List<Entry> readRecords(String operation, String sessionId, LuaScript script, List<byte[]> args) {
        List<byte[]> readKeys = bytes(keys.logAndMeta(sessionId));
        List<?> reply = (List<?>) calls.read(operation, sessionId, j -> script.run(j, readKeys, args));
        return decodeAll(sessionId, Long.parseLong(text(reply.get(0))), (List<?>) reply.get(1));
    }

    private List<Entry> decodeAll(String sessionId, long firstIndex, List<?> records) {
        List<Entry> entries = new ArrayList<>(records.size());
        String list = "Redis list " + keys.key(sessionId, RedisKeys.LOG);
        for (int i = 0; i < records.size(); i++) {
            entries.add(RedisRecords.decodeEntry((byte[]) records.get(i), firstIndex + i, list));
        }
        return List.copyOf(entries);
    }

    private List<byte[]> writeKeys(String sessionId) {
        return bytes(keys.all(sessionId));
    }

    /** A random token for one write call (the same for all its attempts), or none. */
    private byte[] newToken() {
        return writeTokens ? bytes(Entry.newId()) : EMPTY;
    }

    private static boolean positive(Object reply) {
        return ((Number) reply).longValue() > 0;
    }
}
