package io.github.memorypack.benchmarks.window;

import dev.langchain4j.memory.ChatMemory;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A pre-filled memory and the position of the next turn in its {@link Conversation}; the base of
 * every benchmark state that runs chat turns.
 */
public abstract class TurnState {

    final Conversation conversation = Conversation.standard();
    private ChatMemory memory;
    private long next;

    /**
     * Starts over on {@code memory}, which holds the conversation's first {@code history} messages,
     * and reads its view once, as a session's first request does: the measured turns are those of
     * a long-lived memory (AiServices keeps one per memory id), not its first read.
     */
    void start(ChatMemory memory, int history) {
        this.memory = memory;
        this.next = history;
        memory.messages();
        System.gc(); // keep the pre-fill's garbage out of the measured turns
    }

    /** Runs the conversation's next {@code turns} turns (see {@link Memories#turn}). */
    void turns(int turns, Blackhole sink) {
        for (int t = 0; t < turns; t++) {
            sink.consume(Memories.turn(memory, conversation.message(next), conversation.message(next + 1)));
            next += 2;
        }
    }
}
