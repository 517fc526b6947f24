package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every message kind (and a 2-million-character one) round-trips exactly through MEMORY.md files. */
class MemoryMdRareMessagesTest {

    @TempDir
    Path dir;

    @Test
    void should_round_trip_every_rare_message_exactly_when_read_by_a_new_store() {
        MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T14:00:00.123456789Z"));
        MemoryMdSessionStore store = MemoryMdSessionStore.builder().directory(dir).clock(clock).build();
        List<ChatMessage> messages = RareMessages.all();
        for (ChatMessage m : messages) {
            store.append("one", List.of(NewEntry.of(m)));
        }
        List<Entry> stored = store.append("batch", messages.stream().map(NewEntry::of).toList(), "key");
        store.compareAndSetState("batch", 0, SessionState.EMPTY.withSystemMessage(
                SystemMessage.from(RareMessages.longText())));

        MemoryMdSessionStore reopened = MemoryMdSessionStore.of(dir);
        assertThat(reopened.getMessages("one")).containsExactlyElementsOf(messages);
        assertThat(reopened.read("batch", 0, 100)).containsExactlyElementsOf(stored);
        assertThat(reopened.readLast("batch", 1).get(0).timestamp()).isEqualTo(clock.instant());
        assertThat(reopened.state("batch").systemMessage().orElseThrow().text()).isEqualTo(RareMessages.longText());
    }
}
