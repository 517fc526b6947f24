package io.github.memorypack.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.memory.ChatMemoryAccess;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.SampleMessages.ScriptedModel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of core/README.md, "Memory objects and heap", verbatim. */
class HeapReadmeExampleTest {

    @TempDir
    Path folder;

    // README example starts
    interface Assistant extends ChatMemoryAccess {           // lets the application evict memory objects
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String text);
    }
    // README example ends

    @Test
    void should_run_readme_example_when_copied_verbatim() {
        ChatModel model = new ScriptedModel().thenReply("Hello Alice!");

        // README example starts
        FileSessionStore store = FileSessionStore.builder()
                .directory(folder)
                .maxCachedSessions(2_000)              // sessions whose parsed tail the store keeps (default 1,000)
                .build();
        ChatMemoryProvider memories = BufferChatMemory.builder()
                .chatMemoryStore(store)
                .viewCacheSize(2_000)                  // views kept for this provider's memories (default: 1,000 shared)
                .provider();
        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memories)
                .build();

        assistant.chat("alice@example.com", "Hi, I'm Alice.");
        assistant.evictChatMemory("alice@example.com");  // conversation over: the log stays in the store
        // README example ends

        assertThat(assistant.getChatMemory("alice@example.com")).isNull();
        assertThat(memories.get("alice@example.com").messages()).containsExactly(UserMessage.from("Hi, I'm Alice."),
                AiMessage.from("Hello Alice!"));
    }
}
