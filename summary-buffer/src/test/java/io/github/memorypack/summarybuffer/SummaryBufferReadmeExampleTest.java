package io.github.memorypack.summarybuffer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.testkit.SampleMessages.ScriptedModel;
import org.junit.jupiter.api.Test;

/** The summary-buffer examples of the root README and core/README.md, verbatim, with scripted chat and summarizer models. */
class SummaryBufferReadmeExampleTest {

    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    @Test
    void should_run_readme_example_when_copied_verbatim() {
        ScriptedModel chat = new ScriptedModel().thenReply("Hi Ana!");
        ScriptedModel cheap = new ScriptedModel().thenReply("The user is Ana.");
        ChatModel model = chat;
        ChatModel cheapModel = cheap;

        // README example starts
        SessionStore store = InMemorySessionStore.create();
        ChatMemoryProvider memories = SummaryBufferChatMemory.builder()
                .chatMemoryStore(store)
                .summarizer(Summarizer.llm(cheapModel))
                .maxBufferTokens(2_000)
                .tokenizer(Tokenizers.forModel("gpt-4o-mini"))
                .provider();
        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memories)
                .registerListeners(RequestScope.aiServiceListeners())  // follows each request onto streaming threads
                .build();
        String answer = assistant.chat("user-42", "My name is Ana.");
        // README example ends

        assertThat(answer).isEqualTo("Hi Ana!");
        assertThat(cheap.requests()).isEmpty(); // far under maxTokens: nothing to fold yet
        assertThat(store.getMessages("user-42")).hasSize(2);
    }

    @Test
    void should_fold_offline_when_readme_extractive_example_is_used() {
        SessionStore store = InMemorySessionStore.create();

        // README offline example starts
        SummaryBufferChatMemory memory = SummaryBufferChatMemory.builder()
                .id("user-42")
                .chatMemoryStore(store)
                .summarizer(Summarizer.extractive())
                .maxBufferTokens(200)
                .build();
        // README offline example ends

        memory.add(dev.langchain4j.data.message.UserMessage.from("My name is Ana and I live in Porto. " + "Tell me more. ".repeat(40)));
        memory.add(AiMessage.from("Sure. " + "Here is more. ".repeat(40)));
        memory.add(dev.langchain4j.data.message.UserMessage.from("Thanks!"));
        memory.add(AiMessage.from("You're welcome."));
        assertThat(memory.summary()).get().satisfies(s -> assertThat(s.text()).contains("My name is Ana and I live in Porto."));
    }
}
