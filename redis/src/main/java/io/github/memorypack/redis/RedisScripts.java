package io.github.memorypack.redis;

/**
 * The store's Lua scripts. Writing scripts get the six keys of one session (same hash tag, so one
 * cluster slot): KEYS[1] log (list of entry records), KEYS[2] meta (hash: base = index of the first
 * retained entry), KEYS[3] idempotency batches (hash: caller key -> "firstIndex:count"), KEYS[4]
 * state (hash: version, json, crc), KEYS[5] ops and KEYS[6] ops-old (hashes: write token ->
 * outcome, the current and the previous generation). Reading scripts get KEYS[1] and KEYS[2] only:
 * naming fewer keys keeps them answerable from one node for longer while their slot migrates.
 * Writing scripts take ARGV[1] = TTL in milliseconds (0 = none), refreshed on the first four keys,
 * ARGV[2] = the deduplication window W in milliseconds, and ARGV[3] = the call's write token
 * ('' = none).
 *
 * <p><b>Write tokens</b> make every write safe to send twice. The client picks a random token per
 * call and keeps it across its retries (and Jedis' resends). The script that writes also records
 * the token with the call's outcome, in the same atomic step; a script that finds its token already
 * there changes nothing and returns that outcome. An append under a caller's idempotency key needs
 * no token: the key does the same, for as long as the entries exist.
 *
 * <p>Tokens live in two generations, so that forgetting them costs nothing per write: a new
 * current generation expires 3W after it is created; the first write after it is W old renames it
 * to the previous generation (dropping the one before) and starts a new one. Why every token lives
 * at least W: a token goes into a generation only while that generation is at most W old, and the
 * generation is dropped no earlier than 2W after it was created (by expiry at 3W, or by the second
 * rotation after it, which comes at least W after the first). Tokens live at most 3W; a session
 * holds the tokens of its last 2W of writes or so, in two keys however many writes there are (a
 * slot migrates key by key).
 *
 * <p>When a script finds that its work was already done, it still writes once (it records the
 * token again in the current generation) before returning, so that a {@code WAIT} sent afterwards on the same connection
 * waits for the replication of that earlier write: Redis 7.2+ advances a connection's replication
 * offset only when the connection writes.
 *
 * <p>Why the order of commands matters: Redis does not roll back a script that fails half way, so
 * every script reads and checks first, and its first write is the one that may be refused
 * ({@code RPUSH} under {@code maxmemory}); once a script has written, Redis lets it finish.
 * Replace therefore pushes the new records before trimming the old ones: a refused push leaves the
 * old history intact.
 */
final class RedisScripts {

    private RedisScripts() {
    }

    /** Shared Lua helpers, prepended to every writing script. */
    private static final String HELPERS = """
            local function touch(ttl)
              if ttl > 0 then
                for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
              end
            end
            local function push(nextIndex, tails, from)
              local records = {}
              for i = from, #tails do
                records[#records + 1] = '{"index":' .. string.format('%d', nextIndex + i - from) .. tails[i]
                if #records == 1000 then
                  redis.call('RPUSH', KEYS[1], unpack(records))
                  records = {}
                end
              end
              if #records > 0 then redis.call('RPUSH', KEYS[1], unpack(records)) end
              return #tails - from + 1
            end
            local function base()
              return tonumber(redis.call('HGET', KEYS[2], 'base') or '0')
            end
            local function done()
              if ARGV[3] == '' then return nil end
              local outcome = redis.call('HGET', KEYS[5], ARGV[3]) or redis.call('HGET', KEYS[6], ARGV[3])
              if outcome then
                redis.call('HSET', KEYS[5], ARGV[3], outcome)
                if redis.call('PTTL', KEYS[5]) == -1 then redis.call('PEXPIRE', KEYS[5], 3 * tonumber(ARGV[2])) end
              end
              return outcome
            end
            local function remember(outcome)
              if ARGV[3] == '' then return end
              local window = tonumber(ARGV[2])
              local ttl = redis.call('PTTL', KEYS[5])
              if ttl >= 0 and ttl < 2 * window then
                redis.call('UNLINK', KEYS[6])
                redis.call('RENAME', KEYS[5], KEYS[6])
                ttl = -2
              end
              redis.call('HSET', KEYS[5], ARGV[3], outcome)
              if ttl < 0 then redis.call('PEXPIRE', KEYS[5], 3 * window) end
            end
            """;

    /**
     * ARGV[4] caller idempotency key ('' = none), ARGV[5..] entry tails (a record without its
     * leading {@code {"index":N}). Returns {1, firstIndex} when stored; {2, firstIndex} when this
     * call's token shows it was already stored; {0, firstIndex, records} when the caller key was
     * already used (the records stored then that a trim has kept), or, with no records, when the batch
     * is empty (then nothing is written: an empty append records no key and creates no session).
     */
    static final LuaScript APPEND = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            local key = ARGV[4]
            local already = done()
            if already then return {2, already} end
            local b = base()
            if key ~= '' then
              local batch = redis.call('HGET', KEYS[3], key)
              if batch then
                local sep = string.find(batch, ':', 1, true)
                local firstIndex = tonumber(string.sub(batch, 1, sep - 1))
                local count = tonumber(string.sub(batch, sep + 1))
                -- (a count of 0 is a key an empty append recorded in earlier builds: it stored nothing, so it holds nothing)
                if count > 0 then
                  redis.call('HSET', KEYS[2], 'base', string.format('%d', b))
                  -- a trim may have removed the head of the batch: return what is kept
                  local first = math.max(firstIndex, b)
                  return {0, string.format('%d', first),
                    redis.call('LRANGE', KEYS[1], first - b, firstIndex + count - 1 - b)}
                end
              end
            end
            -- an empty batch stores nothing, not even its key, and creates no session
            if #ARGV < 5 then return {0, string.format('%d', b), {}} end
            local nextIndex = b + redis.call('LLEN', KEYS[1])
            local count = push(nextIndex, ARGV, 5)
            if key ~= '' then
              redis.call('HSET', KEYS[3], key, string.format('%d:%d', nextIndex, count))
            end
            redis.call('HSETNX', KEYS[2], 'base', '0')
            touch(ttl)
            remember(string.format('%d', nextIndex))
            return {1, string.format('%d', nextIndex)}
            """);

    /**
     * KEYS log, meta; ARGV[1] fromIndex, ARGV[2] maxCount (> 0). Returns {index of the first
     * record returned, records}.
     */
    static final LuaScript READ = new LuaScript("""
            local b = tonumber(redis.call('HGET', KEYS[2], 'base') or '0')
            local from = tonumber(ARGV[1]) - b
            if from < 0 then from = 0 end
            return {string.format('%d', b + from), redis.call('LRANGE', KEYS[1], string.format('%d', from),
                string.format('%d', from + tonumber(ARGV[2]) - 1))}
            """);

    /** KEYS log, meta; ARGV[1] count (> 0). Returns {index of the first record returned, records}. */
    static final LuaScript READ_LAST = new LuaScript("""
            local b = tonumber(redis.call('HGET', KEYS[2], 'base') or '0')
            local length = redis.call('LLEN', KEYS[1])
            local from = length - tonumber(ARGV[1])
            if from < 0 then from = 0 end
            return {string.format('%d', b + from), redis.call('LRANGE', KEYS[1], from, -1)}
            """);

    /** KEYS log, meta. Returns the next index as a decimal string. */
    static final LuaScript NEXT_INDEX = new LuaScript("""
            local b = tonumber(redis.call('HGET', KEYS[2], 'base') or '0')
            return string.format('%d', b + redis.call('LLEN', KEYS[1]))
            """);

    /**
     * ARGV[4] expected version, ARGV[5] new version, ARGV[6] state JSON, ARGV[7] its checksum.
     * Returns 1 if stored (now or by this call's earlier attempt), 0 if not.
     */
    static final LuaScript COMPARE_AND_SET_STATE = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            local already = done()
            if already then return tonumber(already) end
            if (redis.call('HGET', KEYS[4], 'version') or '0') ~= ARGV[4] then return 0 end
            redis.call('HSET', KEYS[4], 'version', ARGV[5], 'json', ARGV[6], 'crc', ARGV[7])
            redis.call('HSETNX', KEYS[2], 'base', '0')
            touch(ttl)
            remember('1')
            return 1
            """);

    /** ARGV[4..] entry tails. New entries continue the indices; caller keys are forgotten. Returns 1. */
    static final LuaScript REPLACE = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            if done() then return 1 end
            local oldLength = redis.call('LLEN', KEYS[1])
            local nextIndex = base() + oldLength
            push(nextIndex, ARGV, 4)
            redis.call('LTRIM', KEYS[1], oldLength, -1)
            redis.call('DEL', KEYS[3])
            redis.call('HSET', KEYS[2], 'base', string.format('%d', nextIndex))
            touch(ttl)
            remember('1')
            return 1
            """);

    /**
     * ARGV[4] beforeIndex. Drops entries below it and forgets the caller keys of batches it dropped
     * whole (a key whose batch keeps an entry is still the session's).
     * Returns the number of dropped entries. An unknown session stays unknown.
     */
    static final LuaScript TRIM = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            local already = done()
            if already then return tonumber(already) end
            if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
            local b = base()
            local drop = tonumber(ARGV[4]) - b
            local length = redis.call('LLEN', KEYS[1])
            if drop > length then drop = length end
            if drop <= 0 then return 0 end
            redis.call('LTRIM', KEYS[1], string.format('%d', drop), -1)
            local newBase = b + drop
            redis.call('HSET', KEYS[2], 'base', string.format('%d', newBase))
            local batches = redis.call('HGETALL', KEYS[3])
            for i = 1, #batches, 2 do
              local v = batches[i + 1]
              local sep = string.find(v, ':', 1, true)
              local count = tonumber(string.sub(v, sep + 1))
              if count > 0 and tonumber(string.sub(v, 1, sep - 1)) + count <= newBase then
                redis.call('HDEL', KEYS[3], batches[i])
              end
            end
            touch(ttl)
            remember(string.format('%d', drop))
            return drop
            """);

    /** Deletes the first four keys of the session (its tokens stay until they expire). Returns 1. */
    static final LuaScript DELETE = new LuaScript(HELPERS + """
            if done() then return 1 end
            redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
            remember('1')
            return 1
            """);
}
