package io.github.memorypack.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The buffer example of core/README.md, verbatim. */
class BufferReadmeExampleTest {

    @Test
    void should_run_readme_example_when_copied_verbatim() {
        // README example starts
        SessionStore store = InMemorySessionStore.create();
        ChatMemory memory = BufferChatMemory.builder()
                .id("user-42")
                .chatMemoryStore(store)
                .contextTokens(128_000)
                .listener(MemoryListener.onOverflow(overflow -> System.err.println("too long for the model: " + overflow)))
                .build();
        memory.add(SystemMessage.from("You are a helpful assistant."));
        memory.add(UserMessage.from("Hello!"));
        List<ChatMessage> request = memory.messages();
        // README example ends

        assertThat(request).containsExactly(SystemMessage.from("You are a helpful assistant."),
                UserMessage.from("Hello!"));
    }
}
