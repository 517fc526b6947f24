package io.github.memorypack.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real Redis Cluster of {@link RedisProcess}es on loopback ports, formed from Java the way an
 * operator does it with {@code redis-cli --cluster create}: {@code CLUSTER ADDSLOTS} on the
 * primaries, {@code CLUSTER MEET}, {@code CLUSTER REPLICATE} on the replicas. Nodes can be paused,
 * killed and restarted (a restarted node rejoins from its {@code nodes.conf}), and slots can be
 * migrated by hand ({@code SETSLOT IMPORTING/MIGRATING}, {@code MIGRATE}, {@code SETSLOT NODE}).
 */
final class TestCluster implements AutoCloseable {

    private static final long READY_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int SLOTS = 16384;

    private final List<RedisProcess> nodes;
    private final int primaries;

    private TestCluster(List<RedisProcess> nodes, int primaries) {
        this.nodes = List.copyOf(nodes);
        this.primaries = primaries;
    }

    /**
     * Starts {@code primaries × (1 + replicasEach)} servers and forms the cluster; returns once every
     * node agrees it is healthy and every replica has synced.
     */
    static TestCluster start(int primaries, int replicasEach, Duration nodeTimeout, String... options) {
        List<String> config = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis())));
        config.addAll(Arrays.asList(options));
        List<RedisProcess> started = new ArrayList<>();
        ExecutorService starter = Executors.newFixedThreadPool(primaries * (1 + replicasEach));
        try {
            List<Future<RedisProcess>> starts = new ArrayList<>();
            for (int i = 0; i < primaries * (1 + replicasEach); i++) {
                starts.add(starter.submit(() -> RedisProcess.start(true, config.toArray(new String[0]))));
            }
            RuntimeException failure = null;
            for (Future<RedisProcess> start : starts) {
                try {
                    started.add(start.get());
                } catch (ExecutionException | InterruptedException e) {
                    failure = new IllegalStateException("a cluster node did not start", e);
                }
            }
            if (failure != null) {
                throw failure;
            }
            TestCluster cluster = new TestCluster(started, primaries);
            cluster.form();
            return cluster;
        } catch (RuntimeException e) {
            started.forEach(RedisProcess::close);
            throw e;
        } finally {
            starter.shutdownNow();
        }
    }

    private void form() {
        // slots first: the MEET handshakes then carry them at once, rather than later pings
        for (int i = 0; i < primaries; i++) {
            int from = i * SLOTS / primaries;
            int to = (i + 1) * SLOTS / primaries;
            try (Jedis jedis = jedis(nodes.get(i))) {
                jedis.clusterAddSlots(IntStream.range(from, to).toArray()); // ADDSLOTSRANGE is Redis 7+
            }
        }
        meetAll();
        awaitAll("every node knows every other", j -> knownNodes(j) == nodes.size());
        for (int i = primaries; i < nodes.size(); i++) {
            RedisProcess primary = nodes.get(i % primaries);
            RedisProcess replica = nodes.get(i);
            try (Jedis jedis = jedis(replica)) {
                jedis.clusterReplicate(id(primary));
            }
            await(replica + " synced with " + primary, () -> {
                try (Jedis jedis = jedis(replica)) {
                    return jedis.info("replication").contains("master_link_status:up");
                }
            });
        }
        // Slot owners and replica roles travel only in a node's own ping/pong header, which the
        // first handshake does not apply and later pings carry up to node-timeout/2 later: meeting
        // known nodes again makes every pair exchange headers now.
        meetAll();
        awaitHealthy();
    }

    private void meetAll() {
        for (int i = 0; i < nodes.size(); i++) {
            try (Jedis jedis = jedis(nodes.get(i))) {
                for (RedisProcess other : nodes.subList(i + 1, nodes.size())) {
                    jedis.clusterMeet("127.0.0.1", other.port());
                }
            }
        }
    }

    /**
     * Waits until every node knows every replica as one: a replica wins a failover election only
     * with the votes of primaries that know it replicates the failed one.
     */
    void awaitReplicasKnownEverywhere() {
        int replicas = nodes.size() - primaries;
        awaitAll("every node sees " + replicas + " replicas", j -> {
            int seen = 0;
            for (String line : j.clusterNodes().split("\n")) {
                String[] fields = line.split(" ");
                if (fields.length > 2 && fields[2].contains("slave")) { // flags, such as "myself,slave"
                    seen++;
                }
            }
            return seen == replicas;
        });
    }

    /** Seed nodes for a client: every node. */
    Set<HostAndPort> seeds() {
        Set<HostAndPort> seeds = new HashSet<>();
        for (RedisProcess node : nodes) {
            seeds.add(address(node));
        }
        return seeds;
    }

    /** Every node, primaries first. */
    List<RedisProcess> nodes() {
        return nodes;
    }

    /** The node serving {@code key}'s slot now, as the running nodes see it. */
    RedisProcess primaryOf(String key) {
        return primaryOfSlot(JedisClusterCRC16.getSlot(key));
    }

    /** The node serving {@code slot} now. */
    RedisProcess primaryOfSlot(int slot) {
        try (Jedis jedis = jedis(anyRunning())) {
            for (Object range : jedis.clusterSlots()) {
                List<?> r = (List<?>) range;
                if (((Number) r.get(0)).intValue() <= slot && slot <= ((Number) r.get(1)).intValue()) {
                    return byPort(((Number) ((List<?>) r.get(2)).get(1)).intValue());
                }
            }
        }
        throw new IllegalStateException("no node serves slot " + slot);
    }

    /** {@code count} session ids whose slot {@code primary} serves now. */
    List<String> sessionsOn(RedisProcess primary, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; ids.size() < count; i++) {
            String id = "session-" + i;
            if (primaryOf(id) == primary) { // the slot of {id}, the hash tag of every key of the session
                ids.add(id);
            }
        }
        return ids;
    }

    /** A running replica of {@code primary}. */
    RedisProcess replicaOf(RedisProcess primary) {
        String primaryId = id(primary);
        try (Jedis jedis = jedis(primary)) {
            for (String line : jedis.clusterReplicas(primaryId)) {
                String address = line.split(" ")[1];
                int port = Integer.parseInt(address.substring(address.indexOf(':') + 1, address.indexOf('@')));
                RedisProcess replica = byPort(port);
                if (replica.isRunning()) {
                    return replica;
                }
            }
        }
        throw new IllegalStateException("no running replica of " + primary);
    }

    /** The node's cluster id. */
    String id(RedisProcess node) {
        try (Jedis jedis = jedis(node)) {
            return jedis.clusterMyId();
        }
    }

    /**
     * Moves {@code slot} from its primary to {@code to} as {@code redis-cli --cluster reshard} does,
     * one key per {@code MIGRATE}, running {@code betweenKeys} after each.
     */
    void migrate(int slot, RedisProcess to, Runnable betweenKeys) {
        RedisProcess from = primaryOfSlot(slot);
        String fromId = id(from);
        String toId = id(to);
        try (Jedis source = jedis(from); Jedis target = jedis(to)) {
            target.clusterSetSlotImporting(slot, fromId);
            source.clusterSetSlotMigrating(slot, toId);
            while (true) {
                List<String> keys = source.clusterGetKeysInSlot(slot, 10);
                if (keys.isEmpty()) {
                    break;
                }
                for (String key : keys) {
                    source.migrate("127.0.0.1", to.port(), key, 0, 5_000);
                    betweenKeys.run();
                }
            }
            target.clusterSetSlotNode(slot, toId);
            source.clusterSetSlotNode(slot, toId);
        }
        for (RedisProcess node : nodes) {
            if (node != from && node != to && node.isRunning()) {
                try (Jedis jedis = jedis(node)) {
                    jedis.clusterSetSlotNode(slot, toId);
                } catch (JedisException e) {
                    // a replica refuses SETSLOT; it learns the new owner from the bus
                }
            }
        }
    }

    /** Waits until a replica has taken over every slot of {@code dead} and the cluster is healthy again. */
    void awaitFailoverOf(RedisProcess dead) {
        await("a replica took over from " + dead, () -> {
            for (RedisProcess node : nodes) {
                if (node.isRunning()) {
                    try (Jedis jedis = jedis(node)) {
                        for (Object range : jedis.clusterSlots()) {
                            if (((Number) ((List<?>) ((List<?>) range).get(2)).get(1)).intValue() == dead.port()) {
                                return false;
                            }
                        }
                    }
                }
            }
            return true;
        });
        awaitHealthy();
    }

    /** Waits until every running node says the cluster is ok and all agree who serves which slots. */
    void awaitHealthy() {
        await("cluster healthy and agreed", () -> {
            Set<String> views = new HashSet<>();
            for (RedisProcess node : nodes) {
                if (node.isRunning()) {
                    try (Jedis jedis = jedis(node)) {
                        if (!jedis.clusterInfo().contains("cluster_state:ok")) {
                            return false;
                        }
                        views.add(primariesBySlot(jedis));
                    }
                }
            }
            return views.size() == 1;
        });
    }

    @Override
    public void close() {
        nodes.forEach(RedisProcess::close);
    }

    static HostAndPort address(RedisProcess node) {
        return new HostAndPort("127.0.0.1", node.port());
    }

    static Jedis jedis(RedisProcess node) {
        return new Jedis("127.0.0.1", node.port(), 5_000);
    }

    private RedisProcess anyRunning() {
        return nodes.stream().filter(RedisProcess::isRunning).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node is running"));
    }

    private RedisProcess byPort(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node on port " + port));
    }

    private static String primariesBySlot(Jedis jedis) {
        TreeMap<Long, Object> ranges = new TreeMap<>();
        for (Object range : jedis.clusterSlots()) {
            List<?> r = (List<?>) range;
            ranges.put(((Number) r.get(0)).longValue(), r.get(1) + "@" + ((List<?>) r.get(2)).get(1));
        }
        return ranges.toString();
    }

    private static int knownNodes(Jedis jedis) {
        int known = 0;
        for (String line : jedis.clusterNodes().split("\n")) {
            if (!line.isBlank() && !line.contains("handshake") && !line.contains("noaddr")) {
                known++;
            }
        }
        return known;
    }

    private void awaitAll(String what, Predicate<Jedis> condition) {
        await(what, () -> {
            for (RedisProcess node : nodes) {
                try (Jedis jedis = jedis(node)) {
                    if (!condition.test(jedis)) {
                        return false;
                    }
                }
            }
            return true;
        });
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + READY_NANOS;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (JedisException e) {
                // not ready yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Redis Cluster: timed out waiting until " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }
}
