package io.github.memorypack.benchmarks.redis;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.redis.RedisSessionStore;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import redis.clients.jedis.JedisPooled;

/**
 * Storing one chat turn (a user message and the AI reply) in Redis, for a session that already
 * holds {@link #storedMessages} messages: {@code memory-pack} appends the two entries
 * ({@link RedisSessionStore#append}, one Lua script call); {@code rewrite-json} does what the
 * LangChain4j community store does for the same turn — {@code GET} the session's JSON, decode it,
 * add the two messages, encode everything, {@code SET} it back. The baseline is given its best case:
 * one read and one write per turn (LangChain4j's memories call the store once per added message,
 * i.e. twice per turn), and it drops its two oldest messages so its size stays at
 * {@link #storedMessages}; our log is trimmed back to that size between iterations (outside the
 * measurement).
 *
 * <p><b>Bytes per turn</b> are counted by the Redis server itself: the difference of
 * {@code total_net_input_bytes} (bytes the server read from clients = sent to Redis) and
 * {@code total_net_output_bytes} (bytes written to clients) around every iteration, divided by the
 * turns in it, minus the {@code INFO stats} requests and replies used to read them. Each fork uses
 * its own server (see {@link BenchmarkRedis}), so no other traffic is counted. They are printed at
 * the end of each fork as a {@code [bytes]} line.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@State(Scope.Benchmark)
public class RedisTurnBenchmark {

    static final String SESSION = "bench-session";

    @Param({"100", "1000", "10000"})
    public int storedMessages;

    @Param({"memory-pack", "rewrite-json"})
    public String store;

    private BenchmarkRedis redis;
    private JedisPooled jedis;
    private RedisSessionStore ours;
    private RewriteJsonRedisStore rewrite;
    private long turn;
    private long iterationTurns;
    private long[] iterationStart;
    private long measuredTurns;
    private long bytesIn;
    private long bytesOut;

    @Setup(Level.Trial)
    public void start() {
        redis = BenchmarkRedis.start();
        jedis = new JedisPooled(URI.create(redis.uri()));
        String prefix = "bench:" + System.nanoTime() + ":";
        if (store.equals("memory-pack")) {
            ours = RedisSessionStore.builder().client(jedis).keyPrefix(prefix).build();
            List<NewEntry> batch = new ArrayList<>();
            for (int i = 0; i < storedMessages; i++) {
                batch.add(NewEntry.of(message(i), 60));
            }
            ours.append(SESSION, batch);
        } else if (store.equals("rewrite-json")) {
            rewrite = new RewriteJsonRedisStore(jedis, prefix);
            List<ChatMessage> history = new ArrayList<>();
            for (int i = 0; i < storedMessages; i++) {
                history.add(message(i));
            }
            rewrite.updateMessages(SESSION, history);
        } else {
            throw new IllegalArgumentException("unknown store " + store);
        }
        turn = storedMessages;
    }

    @Setup(Level.Iteration)
    public void countFrom() {
        iterationTurns = 0;
        iterationStart = netBytes();
    }

    @Benchmark
    public Object turn() {
        ChatMessage question = message(turn++);
        ChatMessage answer = message(turn++);
        iterationTurns++;
        if (ours != null) {
            return ours.append(SESSION, List.of(NewEntry.of(question, 60), NewEntry.of(answer, 60)));
        }
        List<ChatMessage> messages = rewrite.getMessages(SESSION);
        messages.add(question);
        messages.add(answer);
        List<ChatMessage> kept = messages.subList(2, messages.size());
        rewrite.updateMessages(SESSION, kept);
        return kept;
    }

    @TearDown(Level.Iteration)
    public void countTo() {
        long[] end = netBytes();
        measuredTurns += iterationTurns;
        bytesIn += end[0] - iterationStart[0] - INFO_REQUEST_BYTES;
        bytesOut += end[1] - iterationStart[1] - (iterationStart[2]); // the first INFO's reply is counted in end
        if (ours != null) {
            ours.trim(SESSION, ours.nextIndex(SESSION) - storedMessages); // keep the log at storedMessages
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        System.out.printf(Locale.ROOT, "%n[bytes] store=%s storedMessages=%d turns=%d sentToRedisPerTurn=%d"
                        + " receivedFromRedisPerTurn=%d%n", store, storedMessages, measuredTurns,
                bytesIn / Math.max(1, measuredTurns), bytesOut / Math.max(1, measuredTurns));
        if (ours != null) {
            ours.delete(SESSION);
        } else {
            rewrite.deleteMessages(SESSION);
        }
        jedis.close();
        redis.close();
    }

    /** RESP size of {@code INFO stats}: {@code *2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n}. */
    static final int INFO_REQUEST_BYTES = 4 + 4 + 6 + 4 + 7;

    /** {bytes read by the server, bytes written by the server, size of this INFO reply}. */
    private long[] netBytes() {
        String info = jedis.info("stats");
        long in = 0;
        long out = 0;
        for (String line : info.split("\r\n")) {
            if (line.startsWith("total_net_input_bytes:")) {
                in = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            } else if (line.startsWith("total_net_output_bytes:")) {
                out = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        int length = info.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        long replyBytes = 1 + Integer.toString(length).length() + 2 + length + 2; // $<len>\r\n<info>\r\n
        return new long[] {in, out, replyBytes};
    }

    /**
     * Turn i's message: even = user question, odd = AI answer; sizes like a real chat (~150 / ~450
     * chars). The JDBC benchmark stores the same messages.
     */
    public static ChatMessage message(long i) {
        if (i % 2 == 0) {
            return UserMessage.from("Question " + i + ": could you compare the two options we discussed, "
                    + "keeping the budget of 40k and the March deadline in mind? Also list open risks.");
        }
        return AiMessage.from("Answer " + i + ": Option A fits the 40k budget with room for contingency and "
                + "can ship by mid-March if the vendor confirms this week. Option B is faster to integrate but "
                + "licensing pushes it to about 46k. Open risks: vendor confirmation, the data migration window, "
                + "and whether the security review can be scheduled before the freeze. I would pick A and ask "
                + "for the vendor's written commitment by Friday.");
    }
}
