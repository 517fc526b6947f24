package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The core README's "Your own strategy" example, compiled and run. */
class MemoryStrategyReadmeExampleTest {

    @Test
    void should_show_the_newest_whole_turns_within_twenty_messages_when_a_strategy_of_ones_own_plans_so() {
        // given
        SessionStore store = InMemorySessionStore.create();
        MemoryStrategy lastTwenty = new MemoryStrategy() {
            @Override
            public String name() {
                return "last-twenty";
            }

            @Override
            public Plan plan(Session session) {
                return Plan.showAll().maxMessages(20);
            }
        };
        MemoryOptions options = MemoryOptions.builder()
                .chatMemoryStore(store)
                .listener(MemoryListener.NONE)
                .build();
        ChatMemoryProvider memories = options.provider(lastTwenty);
        ChatMemory memory = memories.get("user-42");

        // when
        for (int turn = 0; turn < 15; turn++) {
            memory.add(UserMessage.from("question " + turn));
            memory.add(AiMessage.from("answer " + turn));
        }
        List<ChatMessage> request = memory.messages();

        // then: the newest ten turns, whole; the log keeps all thirty messages
        assertThat(request).hasSize(20);
        assertThat(request.get(0)).isEqualTo(UserMessage.from("question 5"));
        assertThat(store.read("user-42", 0, Integer.MAX_VALUE)).hasSize(30);
    }
}
