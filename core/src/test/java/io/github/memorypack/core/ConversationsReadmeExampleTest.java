package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.UserMessage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The "Conversation tools" example in core/README.md, compiled and run. */
class ConversationsReadmeExampleTest {

    @Test
    void should_run_the_readme_example() {
        InMemorySessionStore store = InMemorySessionStore.create();
        InMemorySessionStore other = InMemorySessionStore.create();
        // --- README example start
        String id = "ana-2026-11-29";
        store.append(id, List.of(NewEntry.of(UserMessage.from("Hi"), 4, Map.of("category", "input"))));

        String yaml = Conversations.export(store, id, Conversations.Format.YAML);            // or JSON
        Conversations.importSession(other, "copy", yaml, Conversations.Format.YAML, Conversations.ImportMode.NEW_SESSION_ONLY);
        Conversations.importSession(other, "copy", yaml, Conversations.Format.YAML, Conversations.ImportMode.REPLACE_EXISTING); // explicit

        Conversations.forkAtTurn(store, id, 3, "what-if");     // first 3 turns into a new session; source untouched
        List<Entry> hits = Conversations.search(store, id, "tea");                 // case-insensitive, full log
        Map<ChatMessageType, Conversations.RoleCount> counts = Conversations.countByRole(store, id, Tokenizers.o200k());
        String text = Conversations.historyAsText(store, id);  // "[2026-11-29T10:00:00Z] User: Hi", one line each
        List<Entry> live = Conversations.current(store, id);    // what the memories see: after clear(), set(), retries
        // --- README example end

        assertThat(other.read("copy", 0, 10)).extracting(Entry::message).containsExactly(UserMessage.from("Hi"));
        assertThat(store.read("what-if", 0, 10)).hasSize(1);
        assertThat(hits).isEmpty();
        assertThat(counts.get(ChatMessageType.USER)).isEqualTo(new Conversations.RoleCount(1, 4, 0));
        assertThat(text).endsWith("User: Hi");
        assertThat(live).extracting(Entry::message).containsExactly(UserMessage.from("Hi"));
    }
}
