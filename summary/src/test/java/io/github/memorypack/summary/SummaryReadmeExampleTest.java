package io.github.memorypack.summary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.testkit.SampleMessages.ScriptedModel;
import org.junit.jupiter.api.Test;

/** The summary example of core/README.md, verbatim, with scripted chat and summarizer models. */
class SummaryReadmeExampleTest {

    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    @Test
    void should_run_readme_example_when_copied_verbatim() {
        ScriptedModel chat = new ScriptedModel().thenReply("Hi Ana!").thenReply("Porto is lovely.");
        ScriptedModel cheap = new ScriptedModel().thenReply("The user is Ana.");
        ChatModel model = chat;
        ChatModel cheapModel = cheap;

        // README example starts
        SessionStore store = InMemorySessionStore.create();
        ChatMemoryProvider memories = SummaryChatMemory.builder()
                .chatMemoryStore(store)
                .summarizer(Summarizer.llm(cheapModel))
                .provider();
        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memories)
                .registerListeners(RequestScope.aiServiceListeners())  // follows each request onto streaming threads
                .build();
        String answer = assistant.chat("user-42", "My name is Ana.");
        // README example ends

        // the newest turn stays verbatim; the next one folds it into the summary
        assertThat(answer).isEqualTo("Hi Ana!");
        assertThat(cheap.requests()).isEmpty();
        assertThat(assistant.chat("user-42", "I live in Porto.")).isEqualTo("Porto is lovely.");
        assertThat(cheap.requests()).hasSize(1);
        assertThat(store.state("user-42").summary()).get()
                .satisfies(s -> assertThat(s.text()).isEqualTo("The user is Ana."));
        assertThat(store.getMessages("user-42")).hasSize(4);
    }
}
