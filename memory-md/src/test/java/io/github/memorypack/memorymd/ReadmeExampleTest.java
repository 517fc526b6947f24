package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import io.github.memorypack.core.Entry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example in memory-md/README.md, compiled and run. */
class ReadmeExampleTest {

    @TempDir
    Path folder;

    @Test
    void should_run_the_readme_example() {
        // --- README example start
        MemoryMdSessionStore store = MemoryMdSessionStore.builder()
                .directory(folder)                                   // <folder>/<sessionId>/MEMORY.md
                .durability(MemoryMdSessionStore.Durability.SYNC)    // fsync each append (default)
                .build();
        ChatMemoryProvider memories = sessionId -> MemoryMdChatMemory.builder()
                .id(sessionId).chatMemoryStore(store)
                .preload(MemoryMdChatMemory.Preload.TYPED)          // or PREAMBLE (swarms style)
                .build();

        ChatMemory memory = memories.get("user-42");
        memory.add(UserMessage.from("I prefer tea."));
        memory.add(AiMessage.from("Noted: tea."));

        store.compact("user-42", "The user prefers tea.");  // archive/history_<ts>.md, then a fresh file
        // --- README example end

        assertThat(memories.get("user-42").messages()).hasSize(1); // the summary
        assertThat(store.archiveDirectory("user-42").toFile().list()).hasSize(1);
    }

    @Test
    void should_parse_the_file_format_sample_in_the_readme_with_its_checksums() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("````markdown\n") + "````markdown\n".length();
        String sample = readme.substring(start, readme.indexOf("````\n", start));

        assertThat(MemoryMdFormat.parse(sample)).extracting(Entry::message).containsExactly(
                UserMessage.from("Book a table for two.\n# not a heading"), AiMessage.from("Booked: 8 pm."),
                ToolExecutionResultMessage.from("call-1", "weather", "sunny"));
    }
}
