package io.github.memorypack.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.SessionStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The example of window/README.md, verbatim. */
class WindowReadmeExampleTest {

    @Test
    void should_show_the_newest_twenty_messages_with_shared_options_when_copied_verbatim() {
        SessionStore store = InMemorySessionStore.create();
        List<MemoryListener.Overflow> overflows = new ArrayList<>();
        // README example starts
        MemoryOptions options = MemoryOptions.builder()
                .chatMemoryStore(store)
                .listener(MemoryListener.onOverflow(overflows::add))
                .build();
        ChatMemoryProvider memories = WindowChatMemory.builder()
                .options(options)
                .maxMessages(20)
                .provider();
        ChatMemory memory = memories.get("user-42");
        // README example ends

        for (int turn = 0; turn < 15; turn++) {
            memory.add(UserMessage.from("question " + turn));
            memory.add(AiMessage.from("answer " + turn));
        }
        assertThat(memory.messages()).hasSize(20).first().isEqualTo(UserMessage.from("question 5"));
        assertThat(store.read("user-42", 0, Integer.MAX_VALUE)).hasSize(30);
        assertThat(overflows).isEmpty();
    }
}
