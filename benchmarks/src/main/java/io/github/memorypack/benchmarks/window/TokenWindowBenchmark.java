package io.github.memorypack.benchmarks.window;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.Tokenizers;
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
 * Cost of one chat turn through a token-limited window: {@code WindowChatMemory.maxTokens(n)} with
 * {@code Tokenizers.o200k()} against LangChain4j's {@code TokenWindowChatMemory(n)} with
 * {@code OpenAiTokenCountEstimator("gpt-4o-mini")} (also o200k), both on in-memory stores and
 * pre-filled with a {@value #HISTORY}-message conversation (3.15 million tokens, so every
 * window is full); plus the floor: counting the tokens of the turn's two new messages alone, the
 * least any token window must do per turn.
 *
 * <p>Keeping the measured state representative: as in {@link MessageWindowBenchmark}, each
 * iteration is one invocation of a fixed number of turns ({@link Mode#SingleShotTime}, reported per
 * turn) after {@code @Setup(Level.Iteration)} rebuilt the pre-filled memory, so our log grows by at
 * most 2×{@value #TURNS} messages (+2%). LangChain4j's store stays at its full window on its own
 * (see {@link #langChain4j}).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 100)
@Measurement(iterations = 30)
public class TokenWindowBenchmark {

    static final int HISTORY = 20_000;
    static final int TURNS = 200;

    /** State shared by both memories: the token limit and the pre-filled memory. */
    @State(Scope.Thread)
    public abstract static class Window extends TurnState {

        @Param({"2000", "50000", "500000"})
        public int maxTokens;

        @Setup(Level.Iteration)
        public void prefill() {
            start(create(conversation, HISTORY, maxTokens), HISTORY);
        }

        abstract ChatMemory create(Conversation conversation, int history, int maxTokens);
    }

    @State(Scope.Thread)
    public static class Ours extends Window {
        @Override
        ChatMemory create(Conversation conversation, int history, int maxTokens) {
            return Memories.ourTokenWindow(conversation, history, maxTokens);
        }
    }

    @State(Scope.Thread)
    public static class LangChain4j extends Window {
        @Override
        ChatMemory create(Conversation conversation, int history, int maxTokens) {
            return Memories.langChain4jTokenWindow(conversation, history, maxTokens);
        }
    }

    /** The floor's state: the same conversation, no memory. */
    @State(Scope.Thread)
    public static class Floor {
        final Conversation conversation = Conversation.standard();
        final TokenCountEstimator tokenizer = Tokenizers.o200k();
        long next = HISTORY;
    }

    @Benchmark
    @OperationsPerInvocation(TURNS)
    public void memoryPack(Ours window, Blackhole sink) {
        window.turns(TURNS, sink);
    }

    /**
     * LangChain4j's turns take milliseconds to seconds, and its store never grows (each turn evicts
     * what no longer fits), so its state is steady without resets: plain time-bound iterations of
     * one turn per invocation. An iteration always finishes the turn it started, so at 500,000
     * tokens an iteration is a single turn.
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Warmup(iterations = 1, time = 1)
    @Measurement(iterations = 3, time = 1)
    public void langChain4j(LangChain4j window, Blackhole sink) {
        window.turns(1, sink);
    }

    @Benchmark
    @OperationsPerInvocation(TURNS)
    public void floor(Floor floor, Blackhole sink) {
        for (int t = 0; t < TURNS; t++) {
            long user = floor.next;
            floor.next += 2;
            ChatMessage question = floor.conversation.message(user);
            ChatMessage answer = floor.conversation.message(user + 1);
            sink.consume(floor.tokenizer.estimateTokenCountInMessage(question)
                    + floor.tokenizer.estimateTokenCountInMessage(answer));
        }
    }
}
