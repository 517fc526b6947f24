package io.github.memorypack.core.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.Tokenizers;
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
        MemoryId id = MemoryId.of("acme", "ana", "support-bot", "2026-11-29"); // -> "acme.ana.support-bot.2026-11-29"
        store.append(id.key(), List.of(NewEntry.of(UserMessage.from("Hi"), 4, Map.of("category", "input"))));

        String yaml = Conversations.export(store, id.key(), TranscriptFormat.YAML);            // or JSON
        Conversations.importSession(other, "copy", yaml, TranscriptFormat.YAML, ImportMode.NEW_SESSION_ONLY);
        Conversations.importSession(other, "copy", yaml, TranscriptFormat.YAML, ImportMode.REPLACE_EXISTING); // explicit

        Conversations.forkAtTurn(store, id.key(), 3, "what-if");     // first 3 turns into a new session; source untouched
        List<Entry> hits = Conversations.search(store, id.key(), "tea");                 // case-insensitive, full log
        Map<ChatMessageType, RoleCount> counts = Conversations.countByRole(store, id.key(), Tokenizers.o200k());
        String text = Conversations.historyAsText(store, id.key());  // "[2026-11-29T10:00:00Z] User: Hi", one line each
        List<MemoryId> anasSessions = MemoryId.sessionsOf(store, "acme", "ana");
        // --- README example end

        assertThat(other.read("copy", 0, 10)).extracting(Entry::message).containsExactly(UserMessage.from("Hi"));
        assertThat(store.read("what-if", 0, 10)).hasSize(1);
        assertThat(hits).isEmpty();
        assertThat(counts.get(ChatMessageType.USER)).isEqualTo(new RoleCount(1, 4, 0));
        assertThat(text).endsWith("User: Hi");
        assertThat(anasSessions).containsExactly(id);
    }
}
