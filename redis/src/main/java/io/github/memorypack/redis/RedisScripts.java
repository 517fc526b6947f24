package io.github.memorypack.redis;

/**
 * The store's Lua scripts. Every script gets the same four keys of one session (same hash tag, so
 * one cluster slot): KEYS[1] log (list of entry lines), KEYS[2] meta (hash: base = index of the
 * first retained entry), KEYS[3] idempotency batches (hash: key -> "firstIndex:count"), KEYS[4]
 * state (hash: version, json). Writing scripts take ARGV[1] = TTL in milliseconds (0 = none) and
 * refresh it on every key of the session before returning.
 *
 * <p>Why the order of commands matters: Redis does not roll back a script that fails half way, so
 * every script reads and checks first, and its first write is the one that may be refused
 * ({@code RPUSH} under {@code maxmemory}); once a script has written, Redis lets it finish.
 * Replace therefore pushes the new lines before trimming the old ones: a refused push leaves the
 * old history intact.
 */
final class RedisScripts {

    private RedisScripts() {
    }

    /** Shared Lua helpers, prepended to every writing script. */
    private static final String HELPERS = """
            local function touch(ttl)
              if ttl > 0 then
                for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
              end
            end
            local function push(nextIndex, bodies, from)
              local lines = {}
              for i = from, #bodies do
                lines[#lines + 1] = '{"index":' .. string.format('%d', nextIndex + i - from) .. bodies[i]
                if #lines == 1000 then
                  redis.call('RPUSH', KEYS[1], unpack(lines))
                  lines = {}
                end
              end
              if #lines > 0 then redis.call('RPUSH', KEYS[1], unpack(lines)) end
              return #bodies - from + 1
            end
            local function base()
              return tonumber(redis.call('HGET', KEYS[2], 'base') or '0')
            end
            """;

    /**
     * ARGV[2] idempotency key ('' = none), ARGV[3..] entry bodies (an entry's JSON line without its
     * leading {@code {"index":N}). Returns {1, firstIndex} when stored, {0, lines} when the key was
     * already used (the lines stored then).
     */
    static final LuaScript APPEND = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            local key = ARGV[2]
            local b = base()
            if key ~= '' then
              local batch = redis.call('HGET', KEYS[3], key)
              if batch then
                local sep = string.find(batch, ':', 1, true)
                local first = tonumber(string.sub(batch, 1, sep - 1)) - b
                local count = tonumber(string.sub(batch, sep + 1))
                if count == 0 then return {0, {}} end
                return {0, redis.call('LRANGE', KEYS[1], first, first + count - 1)}
              end
            end
            local nextIndex = b + redis.call('LLEN', KEYS[1])
            local count = push(nextIndex, ARGV, 3)
            if key ~= '' then
              redis.call('HSET', KEYS[3], key, string.format('%d:%d', nextIndex, count))
            end
            redis.call('HSETNX', KEYS[2], 'base', '0')
            touch(ttl)
            return {1, string.format('%d', nextIndex)}
            """);

    /** ARGV[1] fromIndex, ARGV[2] maxCount (> 0). Returns the lines. */
    static final LuaScript READ = new LuaScript("""
            local from = tonumber(ARGV[1]) - tonumber(redis.call('HGET', KEYS[2], 'base') or '0')
            if from < 0 then from = 0 end
            return redis.call('LRANGE', KEYS[1], string.format('%d', from),
                string.format('%d', from + tonumber(ARGV[2]) - 1))
            """);

    /** Returns the next index as a decimal string. */
    static final LuaScript NEXT_INDEX = new LuaScript("""
            local b = tonumber(redis.call('HGET', KEYS[2], 'base') or '0')
            return string.format('%d', b + redis.call('LLEN', KEYS[1]))
            """);

    /** ARGV[2] expected version, ARGV[3] new version, ARGV[4] state JSON. Returns 1 if stored, 0 if not. */
    static final LuaScript COMPARE_AND_SET_STATE = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            if (redis.call('HGET', KEYS[4], 'version') or '0') ~= ARGV[2] then return 0 end
            redis.call('HSET', KEYS[4], 'version', ARGV[3], 'json', ARGV[4])
            redis.call('HSETNX', KEYS[2], 'base', '0')
            touch(ttl)
            return 1
            """);

    /** ARGV[2..] entry bodies. New entries continue the indices; idempotency keys are forgotten. */
    static final LuaScript REPLACE = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            local oldLength = redis.call('LLEN', KEYS[1])
            local nextIndex = base() + oldLength
            push(nextIndex, ARGV, 2)
            redis.call('LTRIM', KEYS[1], oldLength, -1)
            redis.call('DEL', KEYS[3])
            redis.call('HSET', KEYS[2], 'base', string.format('%d', nextIndex))
            touch(ttl)
            return 1
            """);

    /**
     * ARGV[2] beforeIndex. Drops entries below it and forgets the idempotency keys of dropped
     * batches. Returns the number of dropped entries. An unknown session stays unknown.
     */
    static final LuaScript TRIM = new LuaScript(HELPERS + """
            local ttl = tonumber(ARGV[1])
            if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
            local b = base()
            local drop = tonumber(ARGV[2]) - b
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
              if tonumber(string.sub(v, sep + 1)) > 0 and tonumber(string.sub(v, 1, sep - 1)) < newBase then
                redis.call('HDEL', KEYS[3], batches[i])
              end
            end
            touch(ttl)
            return drop
            """);

    /** Deletes every key of the session. */
    static final LuaScript DELETE = new LuaScript("""
            return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
            """);
}
