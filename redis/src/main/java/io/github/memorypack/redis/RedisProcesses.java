package io.github.memorypack.redis;

import static io.github.memorypack.redis.RedisRecords.bytes;

import io.github.memorypack.core.SessionStore;
import java.time.Duration;
import java.util.List;

/**
 * Which processes use a store's keys ({@link RedisSessionStore#processId}, {@link RedisSessionStore#processEnded}),
 * as leases ({@link SessionStore.ProcessLease}: the id, the renewing thread, taking a new id when the lease
 * lapsed): a lease is the key {@code <prefix>process:<id>}, created with a TTL ({@code SET NX PX}) and renewed
 * only while it still exists ({@code SET XX PX}: an expired key is never created again); a process whose key
 * is gone has ended.
 *
 * <p>The key is one plain key per process, so it is on one Cluster slot whatever the prefix; it never has a
 * '{' right after the prefix, so it is never a session's key nor matched by the sessions' {@code SCAN}
 * pattern. It is not deleted on close: with a client the application passed in, memories on a closed store
 * still write, and their open turns still run; it expires within the TTL.
 */
final class RedisProcesses extends SessionStore.ProcessLease {

    /** What follows the prefix in a process key. */
    static final String PART = "process:";
    /** How long a process key lives without a refresh, unless a test says otherwise. */
    static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofSeconds(60);

    private static final LuaScript CREATE = new LuaScript(
            "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 else return 0 end");
    private static final LuaScript REFRESH = new LuaScript(
            "if redis.call('SET', KEYS[1], ARGV[1], 'XX', 'PX', ARGV[2]) then return 1 else return 0 end");
    private static final byte[] VALUE = bytes("alive");

    private final RedisCalls calls;
    private final RedisCalls probe;
    private final String prefix;
    private final byte[] ttlMillis;

    /**
     * @param owner the store whose collection stops the refresher
     * @param calls how the key is created and refreshed (the store's retries and replicas to wait for)
     * @param probe how a key is looked up, and refreshed on a caller's thread (one attempt: a failure means "cannot tell")
     */
    RedisProcesses(Object owner, RedisCalls calls, RedisCalls probe, String prefix, Duration ttl) {
        super(owner, ttl);
        this.calls = calls;
        this.probe = probe;
        this.prefix = prefix;
        this.ttlMillis = bytes(Long.toString(ttl.toMillis()));
    }

    @Override
    protected boolean create(String id, boolean quick) {
        return set(CREATE, "process create", id, quick ? probe : calls);
    }

    @Override
    protected boolean renew(String id, boolean quick) {
        return set(REFRESH, "process refresh", id, quick ? probe : calls);
    }

    @Override
    protected boolean lapsed(String id) {
        byte[] key = key(id);
        return !probe.read("processEnded", null, j -> j.exists(key));
    }

    @Override
    protected String where(String id) {
        return "Redis key " + prefix + PART + (id == null ? "<id>" : id);
    }

    private boolean set(LuaScript script, String operation, String id, RedisCalls via) {
        Object done = via.write(operation, null, script, List.of(key(id)), List.of(VALUE, ttlMillis),
                r -> ((Number) r).longValue() == 1);
        return ((Number) done).longValue() == 1;
    }

    private byte[] key(String id) {
        return bytes(prefix + PART + id);
    }
}
