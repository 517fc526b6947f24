package io.github.memorypack.benchmarks.window;

import dev.langchain4j.memory.ChatMemory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Whether a turn's cost depends on how long the stored history is: our windows at a fixed size
 * ({@value #K} messages; {@value #MAX_TOKENS} tokens) over logs pre-filled with 1,000, 10,000 and
 * 100,000 messages. A window reads only the tail of the log, so the per-turn cost should be flat
 * (the target is within ±25% from 1,000 to 100,000).
 *
 * <p>Keeping the measured state representative: each iteration is one invocation of {@value #TURNS}
 * turns ({@link Mode#SingleShotTime}, reported per turn) after {@code @Setup(Level.Iteration)}
 * rebuilt the pre-filled log, so the log grows by at most 2×{@value #TURNS} messages during a
 * measurement: 1,000 → 1,400 at the smallest size, a rounding error at the largest.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 100)
@Measurement(iterations = 30)
public class HistoryFlatnessBenchmark {

    static final int K = 20;
    static final int MAX_TOKENS = 2_000;
    static final int TURNS = 200;

    @State(Scope.Thread)
    public abstract static class History extends TurnState {

        @Param({"1000", "10000", "100000"})
        public int history;

        @Setup(Level.Iteration)
        public void prefill() {
            start(create(conversation, history), history);
        }

        abstract ChatMemory create(Conversation conversation, int history);
    }

    @State(Scope.Thread)
    public static class MessageWindow extends History {
        @Override
        ChatMemory create(Conversation conversation, int history) {
            return Memories.ourMessageWindow(conversation, history, K);
        }
    }

    @State(Scope.Thread)
    public static class TokenWindow extends History {
        @Override
        ChatMemory create(Conversation conversation, int history) {
            return Memories.ourTokenWindow(conversation, history, MAX_TOKENS);
        }
    }

    @Benchmark
    @OperationsPerInvocation(TURNS)
    public void messageWindow(MessageWindow window, Blackhole sink) {
        window.turns(TURNS, sink);
    }

    @Benchmark
    @OperationsPerInvocation(TURNS)
    public void tokenWindow(TokenWindow window, Blackhole sink) {
        window.turns(TURNS, sink);
    }
}
