package io.github.memorypack.integration;

import io.github.memorypack.window.WindowChatMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import org.junit.jupiter.api.Test;

/** A window through AiServices against a local OpenAI-compatible server (the root README's example shape). */
class WindowReadmeExampleTest {

    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    @Test
    void should_run_readme_example_when_copied_verbatim() throws Exception {
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            server.enqueueText("Hi!");
            ChatModel model = server.model();

            // README example starts
            SessionStore store = InMemorySessionStore.create();
            ChatMemoryProvider memories = WindowChatMemory.builder()
                    .chatMemoryStore(store)
                    .maxMessages(20)
                    .provider();
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(model)
                    .chatMemoryProvider(memories)
                    .build();
            String answer = assistant.chat("user-42", "Hello!");
            // README example ends

            assertThat(answer).isEqualTo("Hi!");
            assertThat(server.takeHistory()).containsExactly("user: Hello!");
            assertThat(store.getMessages("user-42")).hasSize(2);
        }
    }
}
