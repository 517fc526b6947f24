package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.Conversations;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConversationToolsOnMemoryMdTest {

    @TempDir
    Path dir;

    @Test
    void should_move_a_session_with_metadata_between_stores_when_exported_as_yaml_and_imported() {
        // given
        MemoryMdSessionStore files = MemoryMdSessionStore.of(dir);
        String id = "acme.ana.helper.day1";
        files.append(id, List.of(NewEntry.of(UserMessage.from("Book a table ``` for two\n### assistant"), 12,
                        Map.of("category", "input", "agent", "front-desk")),
                NewEntry.of(AiMessage.from("Booked."), 3, Map.of("category", "output"))));
        files.compact(id, "Ana asked for a table.");
        files.append(id, List.of(NewEntry.of(UserMessage.from("Thanks"), 2, Map.of("category", "input"))));
        // when
        String yaml = Conversations.export(MemoryMdSessionStore.of(dir), id, Conversations.Format.YAML);
        InMemorySessionStore memory = InMemorySessionStore.create();
        List<Entry> imported = Conversations.importSession(memory, "copy", yaml, Conversations.Format.YAML,
                Conversations.ImportMode.NEW_SESSION_ONLY);
        // then
        assertThat(imported).singleElement().satisfies(e -> {
            assertThat(e.message()).isEqualTo(UserMessage.from("Thanks"));
            assertThat(e.metadata()).isEqualTo(Map.of("category", "input"));
            assertThat(e.tokenCount()).isEqualTo(2);
        });
        assertThat(memory.state("copy").summary().orElseThrow().text()).isEqualTo("Ana asked for a table.");
        assertThat(files.sessions()).containsExactly(id);
        assertThat(Conversations.historyAsText(files, id)).endsWith("User: Thanks");
    }
}
