package io.github.memorypack.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory-id example of core/README.md ("Memory ids and session ids"), verbatim. */
class MemoryIdsReadmeExampleTest {

    @TempDir
    Path folder;

    @Test
    void should_list_the_memory_ids_the_application_gave_when_the_readme_example_runs() {
        // README example starts
        SessionStore store = FileSessionStore.of(folder);
        ChatMemoryProvider memories = WindowChatMemory.builder().chatMemoryStore(store).maxMessages(20).provider();
        memories.get("alice@example.com").add(UserMessage.from("Hi, I'm Alice."));
        memories.get(42L).add(UserMessage.from("Hi, I'm number 42."));

        List<String> memoryIds = store.memoryIds();   // ["42", "alice@example.com"]: as the application gave them
        List<String> sessionIds = store.sessions();   // ["42", "~YWxpY2VAZXhhbXBsZS5jb20"]: what the store keys by
        // README example ends

        assertThat(memoryIds).containsExactly("42", "alice@example.com");
        assertThat(sessionIds).containsExactly("42", "~YWxpY2VAZXhhbXBsZS5jb20");
        assertThat(FileSessionStore.of(folder).memoryIds()).isEqualTo(memoryIds);
    }

    @Test
    void should_give_back_a_memory_id_too_long_to_encode_when_a_memory_wrote_it() {
        // given: an id of more than 95 UTF-8 bytes, so its session id is a hash
        String longId = "tenant:7/conversation/" + "ä".repeat(60);
        SessionStore store = FileSessionStore.of(folder);
        WindowChatMemory.builder().id(longId).chatMemoryStore(store).maxMessages(20).build()
                .add(UserMessage.from("hello"));

        // when / then: the memory kept the text in the session's state, and it survives a reopen
        assertThat(store.sessions()).singleElement().asString().startsWith("~~");
        assertThat(FileSessionStore.of(folder).memoryIds()).containsExactly(longId);
    }
}
