package io.github.memorypack.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

/**
 * The startup check: warns (once per server and JVM) when a Redis server says it keeps no
 * append-only file, because then an acknowledged append survives a restart of that server only if
 * an RDB snapshot taken after it exists. Asks {@code CONFIG GET appendonly}, or, where
 * {@code CONFIG} is renamed away or not permitted, {@code INFO persistence}. A server that answers
 * neither, or cannot be reached, is left unchecked (logged at debug level): the check never stops
 * a store from being built.
 */
final class PersistenceCheck {

    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private PersistenceCheck() {
    }

    /** Logs a warning for every server of {@code jedis} that keeps no append-only file. */
    static void warnIfOff(UnifiedJedis jedis, String standaloneName) {
        for (Map.Entry<String, Pool<Connection>> node : servers(jedis, standaloneName).entrySet()) {
            Boolean appendOnly;
            try (Connection connection = node.getValue().getResource()) {
                appendOnly = appendOnly(connection);
            } catch (JedisException e) {
                LOG.debug("could not ask Redis {} whether it persists writes", node.getKey(), e);
                continue;
            }
            if (Boolean.FALSE.equals(appendOnly) && WARNED.add(node.getKey())) {
                LOG.warn("Redis {} has persistence off (appendonly no): acknowledged chat messages are lost when it "
                        + "restarts, except what its last RDB snapshot holds. Set appendonly yes (and appendfsync "
                        + "always for every acknowledged append to survive a power loss); see the durability section "
                        + "of memory-pack-redis' README.", node.getKey());
            }
        }
    }

    /**
     * Whether the server keeps an append-only file: {@code null} when it does not say.
     *
     * @throws JedisException if the server cannot be reached
     */
    static Boolean appendOnly(Connection connection) {
        try {
            Object reply = connection.executeCommand(
                    new CommandArguments(Protocol.Command.CONFIG).add("GET").add("appendonly"));
            List<?> pair = (List<?>) reply;
            if (pair.size() == 2) {
                return "yes".equals(RedisRecords.text(pair.get(1)));
            }
        } catch (JedisDataException e) {
            // CONFIG renamed away (rename-command CONFIG "") or not permitted by the ACL: ask INFO
        }
        try {
            String info = RedisRecords.text(
                    connection.executeCommand(new CommandArguments(Protocol.Command.INFO).add("persistence")));
            if (info.contains("aof_enabled:1")) {
                return true;
            }
            if (info.contains("aof_enabled:0")) {
                return false;
            }
        } catch (JedisDataException e) {
            // INFO not permitted either
        }
        return null;
    }

    private static Map<String, Pool<Connection>> servers(UnifiedJedis jedis, String standaloneName) {
        Map<String, Pool<Connection>> servers = new LinkedHashMap<>();
        if (jedis instanceof JedisCluster) {
            servers.putAll(((JedisCluster) jedis).getClusterNodes()); // primaries and replicas: either may serve
        } else if (jedis instanceof JedisPooled) {
            servers.put(standaloneName, ((JedisPooled) jedis).getPool());
        }
        return servers;
    }
}
