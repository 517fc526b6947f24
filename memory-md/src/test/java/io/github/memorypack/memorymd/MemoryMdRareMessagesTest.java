package io.github.memorypack.memorymd;

import io.github.memorypack.testkit.SampleMessages;
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
        List<ChatMessage> messages = SampleMessages.rare();
        for (ChatMessage m : messages) {
            store.append("one", List.of(NewEntry.of(m)));
        }
        List<Entry> stored = store.append("batch", messages.stream().map(NewEntry::of).toList(), "key");
        store.compareAndSetState("batch", 0, SessionState.EMPTY.withSystemMessage(
                SystemMessage.from(SampleMessages.longText())));

        MemoryMdSessionStore reopened = MemoryMdSessionStore.of(dir);
        assertThat(reopened.read("one", 0, 100)).extracting(Entry::message).containsExactlyElementsOf(messages);
        assertThat(reopened.read("batch", 0, 100)).containsExactlyElementsOf(stored);
        assertThat(reopened.readLast("batch", 1).get(0).timestamp()).isEqualTo(clock.instant());
        assertThat(reopened.state("batch").systemMessage().orElseThrow().text()).isEqualTo(SampleMessages.longText());
    }

    /**
     * Fails today, in core: {@code EntryCodec} stores a {@code CustomMessage}'s attributes through
     * LangChain4j's JSON, so a {@code Long} reads back as an {@code Integer}, a {@code Float} or
     * {@code BigDecimal} as a {@code Double}, a {@code Character} as a {@code String}, {@code byte[]} as
     * Base64 text and {@code NaN} as the text "NaN" (the message no longer equals what was appended,
     * silently); and an attribute Jackson cannot write (an {@code Instant}, a plain object) throws a
     * bare {@code RuntimeException} (JDBC, Redis) or a {@code StoreException} after the session folder
     * was created (MEMORY.md). DESIGN.md: "a store refuses, before writing, what it could not read back".
     */
    @Test
    void should_refuse_before_writing_or_round_trip_exactly_when_custom_attributes_are_not_json_types() {
        MemoryMdSessionStore store = MemoryMdSessionStore.of(dir);
        List<Object> values = List.of(42L, 1.5f, 'c', new java.math.BigDecimal("1.10"), new byte[] {1}, Double.NaN,
                Instant.EPOCH, new Object());
        for (int i = 0; i < values.size(); i++) {
            String session = "custom-" + i;
            dev.langchain4j.data.message.CustomMessage message =
                    new dev.langchain4j.data.message.CustomMessage(java.util.Map.of("v", values.get(i)));
            try {
                store.append(session, List.of(NewEntry.of(message)));
            } catch (IllegalArgumentException refused) {
                assertThat(dir.resolve(session)).doesNotExist();
                continue;
            }
            assertThat(MemoryMdSessionStore.of(dir).getMessages(session)).as("attribute %s", values.get(i))
                    .containsExactly(message);
        }
    }
}
