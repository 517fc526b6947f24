package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random conversations written through two buffer instances on one session (two requests, two
 * processes): after every read, each instance shows exactly what a fresh render of the whole log
 * shows, and the store holds every message.
 */
class BufferPropertiesTest {

    @Property(tries = 150)
    void should_show_a_fresh_render_of_the_whole_log_when_two_instances_write(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 99) Integer> ops) {
        // given
        InMemorySessionStore store = InMemorySessionStore.create();
        ChatMemory first = MemoryOptions.builder().chatMemoryStore(store).build().memory(TestStrategies.BUFFER, "s");
        ChatMemory second = MemoryOptions.builder().chatMemoryStore(store).build().memory(TestStrategies.BUFFER, "s");
        List<ChatMessage> expectedLog = new ArrayList<>();
        List<ToolExecutionRequest> pending = new ArrayList<>();
        SystemMessage system = null;

        for (int i = 0; i < ops.size(); i++) {
            // when
            int op = ops.get(i);
            ChatMessage message;
            switch (op % 5) {
                case 0:
                case 1:
                    message = UserMessage.from("user " + i);
                    break;
                case 2:
                    message = AiMessage.from("ai " + i);
                    break;
                case 3: {
                    ToolExecutionRequest request = ToolExecutionRequest.builder().id("t" + i).name("tool")
                            .arguments("{}").build();
                    pending.add(request);
                    message = AiMessage.from(request);
                    break;
                }
                default:
                    if (op % 3 == 0) {
                        message = SystemMessage.from(op % 2 == 0 ? "prompt A" : "prompt B");
                    } else if (pending.isEmpty()) {
                        message = ToolExecutionResultMessage.from("none" + i, "tool", "orphan " + i);
                    } else {
                        message = ToolExecutionResultMessage.from(pending.remove(0), "result " + i);
                    }
                    break;
            }
            if (!(message instanceof SystemMessage) || !message.equals(system)) {
                expectedLog.add(message);
            }
            if (message instanceof SystemMessage) {
                system = (SystemMessage) message;
            }
            (op % 2 == 0 ? first : second).add(message);
            if (op % 4 == 0) {
                continue;
            }

            // then
            List<ChatMessage> fresh = ViewRules.defaults()
                    .render(store.state("s"), store.read("s", 0, Integer.MAX_VALUE), ViewLimit.none()).messages();
            assertThat(first.messages()).isEqualTo(fresh);
            assertThat(second.messages()).isEqualTo(fresh);
            assertThat(store.read("s", 0, Integer.MAX_VALUE)).extracting(Entry::message).isEqualTo(expectedLog);
        }
    }
}
