package io.github.memorypack.benchmarks.summary;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.replay.Conversation;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * CPU per turn of {@link SummaryChatMemory} with the offline extractive summarizer (cap 500 tokens)
 * on the samples' 322-turn conversation, in-memory store: one invocation replays every turn as
 * {@code AiServices} does ({@code add(system)}, {@code messages()}, {@code add(user)}, {@code add(ai)};
 * every finished turn may fold). Single-threaded, so time is CPU time.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar SummaryTurnBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(1)
public class SummaryTurnBenchmark {

    private static final SystemMessage SYSTEM = SystemMessage.from("You are a helpful travel assistant.");
    private static final List<Conversation.Turn> TURNS = Conversation.builtIn().turns();

    private Summarizer summarizer;

    @Setup
    public void setUp() {
        summarizer = Summarizer.extractive(500);
    }

    @Benchmark
    @OperationsPerInvocation(322)
    public void summaryTurn(Blackhole blackhole) {
        SummaryChatMemory memory = SummaryChatMemory.builder().id("ana").chatMemoryStore(InMemorySessionStore.create())
                .summarizer(summarizer).build();
        for (Conversation.Turn turn : TURNS) {
            memory.add(SYSTEM);
            blackhole.consume(memory.messages());
            memory.add(UserMessage.from(turn.user()));
            memory.add(AiMessage.from(turn.assistant()));
        }
    }
}
