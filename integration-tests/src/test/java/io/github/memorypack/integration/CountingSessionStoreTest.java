package io.github.memorypack.integration;

import static io.github.memorypack.integration.CountingSessionStore.Operation.APPEND;
import static io.github.memorypack.integration.CountingSessionStore.Operation.COMPARE_AND_SET_STATE;
import static io.github.memorypack.integration.CountingSessionStore.Operation.GET_MESSAGES;
import static io.github.memorypack.integration.CountingSessionStore.Operation.READ;
import static io.github.memorypack.integration.CountingSessionStore.Operation.READ_LAST;
import static io.github.memorypack.integration.CountingSessionStore.Operation.STATE;
import static io.github.memorypack.integration.CountingSessionStore.Operation.UPDATE_MESSAGES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import java.util.List;
import org.junit.jupiter.api.Test;

class CountingSessionStoreTest {

    @Test
    void should_count_calls_and_entries_per_operation_when_store_is_used() {
        // given
        CountingSessionStore store = CountingSessionStore.of(InMemorySessionStore.create());

        // when
        store.append("s", List.of(NewEntry.of(UserMessage.from("a")), NewEntry.of(AiMessage.from("b"))));
        store.readLast("s", 1);
        store.readLast("s", 1);
        store.read("s", 0, 10);
        store.state("s");
        store.compareAndSetState("s", 0, SessionState.EMPTY);
        store.updateMessages("s", List.of(UserMessage.from("a"), AiMessage.from("b"), UserMessage.from("c")));

        // then: the update's own internal read of the delegate is not counted
        assertThat(store.count(APPEND)).isEqualTo(1);
        assertThat(store.count(READ_LAST)).isEqualTo(2);
        assertThat(store.count(READ)).isEqualTo(1);
        assertThat(store.count(STATE)).isEqualTo(1);
        assertThat(store.count(COMPARE_AND_SET_STATE)).isEqualTo(1);
        assertThat(store.count(UPDATE_MESSAGES)).isEqualTo(1);
        assertThat(store.count(GET_MESSAGES)).isZero();
        assertThat(store.totalCalls()).isEqualTo(7);
        assertThat(store.entriesRead()).isEqualTo(1 + 1 + 2);
        assertThat(store.entriesWritten()).isEqualTo(2 + 3);
        assertThat(store.delegate().nextIndex("s")).isEqualTo(3);
    }

    @Test
    void should_start_from_zero_when_reset() {
        // given
        CountingSessionStore store = CountingSessionStore.of(InMemorySessionStore.create());
        store.append("s", List.of(NewEntry.of(UserMessage.from("a"))));
        store.getMessages("s");

        // when
        store.reset();

        // then
        assertThat(store.counts()).containsOnlyKeys(CountingSessionStore.Operation.values()).allSatisfy(
                (op, count) -> assertThat(count).as("%s", op).isZero());
        assertThat(store.entriesRead()).isZero();
        assertThat(store.entriesWritten()).isZero();
        assertThat(store.getMessages("s")).hasSize(1);
    }
}
