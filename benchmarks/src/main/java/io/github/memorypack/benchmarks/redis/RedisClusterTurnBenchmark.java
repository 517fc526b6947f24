package io.github.memorypack.benchmarks.redis;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.redis.RedisSessionStore;
import io.github.memorypack.redis.WriteTokensOff;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.embedded.RedisShardedCluster;
import redis.embedded.core.RedisShardedClusterBuilder;

/**
 * Latency of one chat turn (a user message and the AI reply, appended as one batch without an
 * idempotency key, as a memory does outside a request scope) in a session of {@link #storedMessages}
 * messages, on a standalone server and on a Redis Cluster of 3 primaries with one replica each (all
 * on this machine, loopback), each started by its own fork:
 * <ul>
 *   <li>{@code standalone}, {@code cluster}: the store as shipped (every keyless append carries a
 *       write token);</li>
 *   <li>{@code standalone-no-tokens}, {@code cluster-no-tokens}: write tokens switched off, to show
 *       what they cost per append;</li>
 *   <li>{@code cluster-wait1}: {@code waitForReplicas(1, 1 s)}: every append waits until a replica
 *       has it.</li>
 * </ul>
 * Sample-time mode: JMH reports the distribution of single turns (median {@code p0.50}, {@code p0.99}).
 * At the end of each fork a {@code [server]} line gives the server-side time per append script from
 * {@code INFO commandstats} (summed over the primaries).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 10, time = 2)
@State(Scope.Benchmark)
public class RedisClusterTurnBenchmark {

    @Param({"1000"})
    public int storedMessages;

    @Param({"standalone", "standalone-no-tokens", "cluster", "cluster-no-tokens", "cluster-wait1"})
    public String target;

    private BenchmarkRedis standalone;
    private RedisShardedCluster cluster;
    private List<HostAndPort> servers;
    private RedisSessionStore store;
    private long turn;

    @Setup(Level.Trial)
    public void start() throws IOException {
        RedisSessionStore.Builder builder = RedisSessionStore.builder().keyPrefix("bench:" + System.nanoTime() + ":");
        if (target.startsWith("standalone")) {
            standalone = BenchmarkRedis.start();
            builder.uri(standalone.uri());
            servers = List.of(HostAndPort.from(standalone.uri().substring("redis://".length())));
        } else {
            cluster = new RedisShardedClusterBuilder().ephemeral().shard("a", 1).shard("b", 1).shard("c", 1).build();
            cluster.start();
            Set<HostAndPort> nodes = new HashSet<>();
            for (int port : cluster.serverPorts()) {
                nodes.add(new HostAndPort("127.0.0.1", port));
            }
            servers = new ArrayList<>(nodes);
            builder.clusterNodes(nodes);
            if (target.endsWith("wait1")) {
                builder.waitForReplicas(1, Duration.ofSeconds(1));
            }
        }
        store = (target.endsWith("no-tokens") ? WriteTokensOff.apply(builder) : builder).build();
        List<NewEntry> history = new ArrayList<>();
        for (int i = 0; i < storedMessages; i++) {
            history.add(NewEntry.of(RedisTurnBenchmark.message(i), 60));
        }
        store.append(RedisTurnBenchmark.SESSION, history);
        turn = storedMessages;
        resetScriptStats();
    }

    @Benchmark
    public Object turn() {
        ChatMessage question = RedisTurnBenchmark.message(turn++);
        ChatMessage answer = RedisTurnBenchmark.message(turn++);
        return store.append(RedisTurnBenchmark.SESSION, List.of(NewEntry.of(question, 60), NewEntry.of(answer, 60)));
    }

    @TearDown(Level.Iteration)
    public void keepSize() {
        store.trim(RedisTurnBenchmark.SESSION, store.nextIndex(RedisTurnBenchmark.SESSION) - storedMessages);
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        long calls = 0;
        long micros = 0;
        for (HostAndPort server : servers) {
            try (Jedis jedis = new Jedis(server)) {
                for (String line : jedis.info("commandstats").split("\r\n")) {
                    if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                        calls += Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
                        micros += Long.parseLong(line.replaceAll("^.*,usec=(\\d+),.*", "$1"));
                    }
                }
            } catch (RuntimeException e) {
                // a replica: it runs no scripts
            }
        }
        System.out.printf(Locale.ROOT, "%n[server] target=%s scripts=%d serverMicrosPerScript=%.2f%n", target, calls,
                calls == 0 ? 0.0 : (double) micros / calls);
        store.delete(RedisTurnBenchmark.SESSION);
        store.close();
        if (standalone != null) {
            standalone.close();
        }
        if (cluster != null) {
            try {
                cluster.stop();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void resetScriptStats() {
        for (HostAndPort server : servers) {
            try (Jedis jedis = new Jedis(server)) {
                jedis.configResetStat();
            }
        }
    }
}
