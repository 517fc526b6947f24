package io.github.memorypack.samples;

import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.MemoryStrategy;

/**
 * A strategy of one's own, written against Memory Pack's public strategy SPI only (no engine type):
 * it keeps the first turns of a session (the task brief an agent was given) plus the newest turns
 * within a ceiling of messages. Everything else a memory must get right (whole turns, open turns,
 * tool calls with their results, the pinned system message, {@code set}/{@code clear} round trips,
 * retries, two requests at once) the engine does, so this strategy inherits it: the integration suite
 * runs it through the same round-trip, retry, tool-pair and concurrency tests as the shipped memories.
 *
 * <pre>{@code
 * ChatMemoryProvider memories = MemoryOptions.builder().chatMemoryStore(store).build()
 *         .provider(new TaskBriefStrategy(1, 20));
 * }</pre>
 */
public final class TaskBriefStrategy implements MemoryStrategy {

    private final Plan plan;

    /**
     * Keeps {@code briefTurns} first turns and fills the rest of {@code maxMessages} with the newest.
     *
     * @param briefTurns  how many of the first turns are the brief, at least 0
     * @param maxMessages the ceiling on the view, the brief and the pinned system message included
     * @throws IllegalArgumentException if {@code briefTurns < 0} or {@code maxMessages < 1}
     */
    public TaskBriefStrategy(int briefTurns, int maxMessages) {
        // one plan for every view: the engine applies the same object again at no cost
        this.plan = Plan.showAll().keepOldest(briefTurns).maxMessages(maxMessages);
    }

    /**
     * The name listeners, metrics and accounting report.
     *
     * @return {@code "task-brief"}
     */
    @Override
    public String name() {
        return "task-brief";
    }

    /**
     * The brief and the newest turns within the ceiling, whatever the session holds.
     *
     * @param session the session (not read: the plan does not depend on it)
     * @return the plan
     */
    @Override
    public Plan plan(Session session) {
        return plan;
    }

    /**
     * Shows how the strategy becomes a memory: {@link MemoryOptions#memory} with default options.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        var memory = MemoryOptions.defaults().memory(new TaskBriefStrategy(1, 6), "agent-7");
        memory.add(dev.langchain4j.data.message.UserMessage.from("Brief: book a table for two, Friday 8pm."));
        memory.add(dev.langchain4j.data.message.AiMessage.from("On it."));
        for (int i = 1; i <= 5; i++) {
            memory.add(dev.langchain4j.data.message.UserMessage.from("step " + i));
            memory.add(dev.langchain4j.data.message.AiMessage.from("done " + i));
        }
        memory.messages().forEach(System.out::println); // the brief, then the newest two steps
    }
}
