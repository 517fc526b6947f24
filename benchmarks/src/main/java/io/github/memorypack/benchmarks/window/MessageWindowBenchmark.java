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
 * Cost of one chat turn through a last-k-messages window: {@code WindowChatMemory.maxMessages(k)}
 * against LangChain4j's {@code MessageWindowChatMemory(k)}, both on in-memory stores, both
 * pre-filled with a {@value #HISTORY}-message conversation (ours keeps all of it in its log,
 * LangChain4j's store keeps the last k).
 *
 * <p>Keeping the measured state representative: every turn appends two messages, so a time-bound
 * iteration would grow our log by hundreds of thousands of messages. Instead each iteration is one
 * invocation of {@value #TURNS} turns ({@link Mode#SingleShotTime}), reported per turn, and
 * {@code @Setup(Level.Iteration)} rebuilds the pre-filled memory before each: the log stays within
 * {@value #HISTORY} + 2×{@value #TURNS} messages (+2%), and LangChain4j's store stays at k.
 * Many short iterations replace long ones. The warm-up runs {@code 100 × 200} turns: with short
 * set-ups (small histories) fewer left the JIT's background compilations unfinished on a busy
 * 2-core machine, and small histories then measured up to 3× slower than large ones.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 100)
@Measurement(iterations = 30)
public class MessageWindowBenchmark {

    static final int HISTORY = 20_000;
    static final int TURNS = 200;

    /** State shared by both memories: the window size and the pre-filled memory. */
    @State(Scope.Thread)
    public abstract static class Window extends TurnState {

        @Param({"20", "1000", "10000"})
        public int k;

        @Setup(Level.Iteration)
        public void prefill() {
            start(create(conversation, HISTORY, k), HISTORY);
        }

        abstract ChatMemory create(Conversation conversation, int history, int k);
    }

    @State(Scope.Thread)
    public static class Ours extends Window {
        @Override
        ChatMemory create(Conversation conversation, int history, int k) {
            return Memories.ourMessageWindow(conversation, history, k);
        }
    }

    @State(Scope.Thread)
    public static class LangChain4j extends Window {
        @Override
        ChatMemory create(Conversation conversation, int history, int k) {
            return Memories.langChain4jMessageWindow(conversation, history, k);
        }
    }

    @Benchmark
    @OperationsPerInvocation(TURNS)
    public void memoryPack(Ours window, Blackhole sink) {
        window.turns(TURNS, sink);
    }

    @Benchmark
    @OperationsPerInvocation(TURNS)
    public void langChain4j(LangChain4j window, Blackhole sink) {
        window.turns(TURNS, sink);
    }
}
