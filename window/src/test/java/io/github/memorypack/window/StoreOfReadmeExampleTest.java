package io.github.memorypack.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.SessionStore;
import org.junit.jupiter.api.Test;

/** The example of core/README.md "Any LangChain4j store", verbatim. */
class StoreOfReadmeExampleTest {

    @Test
    void should_run_readme_example_when_copied_verbatim() {
        // README example starts
        ChatMemoryStore communityStore = new InMemoryChatMemoryStore();   // any ChatMemoryStore
        ChatMemory memory = WindowChatMemory.builder()
                .chatMemoryStore(communityStore)                   // adapted by the builder
                .maxMessages(20)
                .build();
        SessionStore store = MemoryOptions.sessionStore(communityStore);   // or adapt it yourself
        // README example ends

        memory.add(UserMessage.from("Hi"));
        assertThat(store.read("default", 0, 10)).extracting(Entry::message).containsExactly(UserMessage.from("Hi"));
        assertThat(MemoryOptions.sessionStore(store)).isSameAs(store);
        assertThat(memory.messages()).containsExactly(UserMessage.from("Hi"));
    }
}
