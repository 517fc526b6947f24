package io.github.memorypack.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.window.WindowChatMemory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The examples of recall/README.md, verbatim, against a local OpenAI-compatible server. */
class RecallReadmeExampleTest {

    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    @TempDir
    Path folder;

    @Test
    void should_run_readme_example_when_copied_verbatim() throws Exception {
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            for (int i = 0; i < 13; i++) {
                server.enqueueText("Noted.");
            }
            ChatModel model = server.model();

            // README example starts
            SessionStore store = FileSessionStore.of(folder);          // indexes go to <folder>/recall-index
            ChatMemoryProvider memories = WindowChatMemory.builder()
                    .chatMemoryStore(store)
                    .maxMessages(10)
                    .provider();
            RecallContentRetriever recall = RecallContentRetriever.builder()
                    .store(store)                                        // the memories' store
                    .maxTokens(800)                                      // budget for recalled turns
                    .build();
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(model)
                    .chatMemoryProvider(memories)
                    .retrievalAugmentor(recall.augmentor())              // or .contentRetriever(recall)
                    .storeRetrievedContentInChatMemory(false)            // keep recalled text out of the log
                    .build();

            assistant.chat("ana", "My sister Ingrid moved to Tromsø last spring.");
            // … many turns later, long after the window let go of it:
            assistant.chat("ana", "Which town is Ingrid based in these days?");
            // README example ends

            for (int i = 0; i < 10; i++) {
                assistant.chat("ana", Chats.fillerQuestion(i));
            }
            // asked again in other words (the same question asked twice is left out of what is recalled)
            assistant.chat("ana", "Remind me, where does Ingrid live now?");
            String last = "";
            for (int i = 0; i < 13; i++) {
                last = String.join("\n", server.takeHistory());
            }
            assertThat(last).contains("User: My sister Ingrid moved to Tromsø last spring.");
            recall.close();
        }
    }

    @Test
    void should_run_lexical_only_and_tool_examples() throws Exception {
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            server.enqueueText("Hello!");
            ChatModel model = server.model();
            SessionStore store = FileSessionStore.of(folder);
            ChatMemoryProvider memories = WindowChatMemory.builder().chatMemoryStore(store).maxMessages(10).provider();

            // README hybrid example starts
            RecallContentRetriever hybrid = RecallContentRetriever.builder()
                    .store(store)
                    .hybrid()                                            // BM25 + in-process all-MiniLM-L6-v2
                    .build();
            // README hybrid example ends
            hybrid.close();
            RecallContentRetriever lexical = RecallContentRetriever.builder().store(store).build();
            // README tool example starts
            Assistant agent = AiServices.builder(Assistant.class)
                    .chatModel(model)
                    .chatMemoryProvider(memories)
                    .tools(lexical.tool())                               // search_earlier_conversation
                    .build();
            // README tool example ends

            assertThat(agent.chat("ana", "Hi")).isEqualTo("Hello!");
            lexical.close();
        }
    }
}
