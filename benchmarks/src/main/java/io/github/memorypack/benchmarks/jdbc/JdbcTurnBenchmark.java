package io.github.memorypack.benchmarks.jdbc;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.benchmarks.redis.RedisTurnBenchmark;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.jdbc.JdbcSessionStore;
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

/**
 * Storing one chat turn (a user message and the AI reply) in PostgreSQL, for a session that
 * already holds {@link #storedMessages} messages: {@code memory-pack} appends the two entries with
 * an idempotency key, as the memories do ({@link JdbcSessionStore#append}: one transaction of
 * three statements); {@code rewrite-json} does what the LangChain4j community SQL store does for
 * the same turn ({@link RewriteJsonJdbcStore}) — read the session's JSON, decode it, add the two
 * messages, encode everything and write it back. The baseline is given its best case: one read and
 * one write per turn (LangChain4j's memories call the store once per added message, i.e. twice per
 * turn), and it drops its two oldest messages so its size stays at {@link #storedMessages}; our log
 * is trimmed back to that size between iterations (outside the measurement). Messages are the
 * Redis benchmark's ({@link RedisTurnBenchmark#message}).
 *
 * <p><b>Bytes per turn</b> are counted on the driver's sockets ({@link CountingSocketFactory}):
 * everything sent to and received from the server during the measured iterations, protocol framing
 * included, divided by the turns; printed at the end of each fork as a {@code [bytes]} line.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@State(Scope.Benchmark)
public class JdbcTurnBenchmark {

    static final String SESSION = "bench-session";

    @Param({"100", "1000", "10000"})
    public int storedMessages;

    @Param({"memory-pack", "rewrite-json"})
    public String store;

    private BenchmarkPostgres postgres;
    private JdbcSessionStore ours;
    private RewriteJsonJdbcStore rewrite;
    private long turn;
    private long iterationTurns;
    private long[] iterationStart;
    private long measuredTurns;
    private long bytesSent;
    private long bytesReceived;

    @Setup(Level.Trial)
    public void start() {
        postgres = BenchmarkPostgres.start();
        String prefix = "bench" + System.nanoTime() + "_";
        if (store.equals("memory-pack")) {
            ours = JdbcSessionStore.builder(postgres.pool()).tablePrefix(prefix).build();
            ours.createSchema();
            List<NewEntry> batch = new ArrayList<>();
            for (int i = 0; i < storedMessages; i++) {
                batch.add(NewEntry.of(RedisTurnBenchmark.message(i), 60));
                if (batch.size() == 500 || i == storedMessages - 1) {
                    ours.append(SESSION, batch);
                    batch = new ArrayList<>();
                }
            }
        } else if (store.equals("rewrite-json")) {
            rewrite = new RewriteJsonJdbcStore(postgres.pool(), prefix + "chat_memory");
            List<ChatMessage> history = new ArrayList<>();
            for (int i = 0; i < storedMessages; i++) {
                history.add(RedisTurnBenchmark.message(i));
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
        iterationStart = CountingSocketFactory.totals();
    }

    @Benchmark
    public Object turn() {
        ChatMessage question = RedisTurnBenchmark.message(turn++);
        ChatMessage answer = RedisTurnBenchmark.message(turn++);
        iterationTurns++;
        if (ours != null) {
            return ours.append(SESSION, List.of(NewEntry.of(question, 60), NewEntry.of(answer, 60)), "turn-" + turn);
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
        long[] end = CountingSocketFactory.totals();
        measuredTurns += iterationTurns;
        bytesSent += end[0] - iterationStart[0];
        bytesReceived += end[1] - iterationStart[1];
        if (ours != null) {
            ours.trim(SESSION, ours.nextIndex(SESSION) - storedMessages); // keep the log at storedMessages
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        System.out.printf(Locale.ROOT, "%n[bytes] store=%s storedMessages=%d turns=%d sentToPostgresPerTurn=%d"
                        + " receivedFromPostgresPerTurn=%d%n", store, storedMessages, measuredTurns,
                bytesSent / Math.max(1, measuredTurns), bytesReceived / Math.max(1, measuredTurns));
        postgres.close();
    }
}
