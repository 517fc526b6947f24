package io.github.memorypack.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionBusyException;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A running turn's open-turn timeout, on the memory clock, around its answer. */
class OpenTurnTimeoutTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-02T10:00:00Z"));

    @Test
    void should_close_the_turn_with_its_answer_when_the_answer_comes_after_the_timeout() throws Exception {
        // given: a turn whose answer comes later than the open-turn timeout
        SessionStore store = InMemorySessionStore.create(clock);
        WindowChatMemory memory = memory(store);
        memory.add(UserMessage.from("q"));
        clock.advance(TIMEOUT.multipliedBy(2));

        // when
        memory.add(AiMessage.from("late a"));

        // then: the answer belongs to the question's turn, and closes it for everyone
        List<Entry> log = store.read("s", 0, 10);
        assertThat(log).extracting(Entry::message).containsExactly(UserMessage.from("q"), AiMessage.from("late a"));
        assertThat(log.get(1).metadata().get("turn")).isNotNull().isEqualTo(log.get(0).metadata().get("turn"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("q"), AiMessage.from("late a"));
        onAnotherThread(() -> memory.add(UserMessage.from("next request"))); // admitted: nothing runs
        assertThat(store.read("s", 0, 10)).hasSize(3);
    }

    @Test
    void should_keep_the_turn_running_for_a_timeout_from_an_answer_whose_append_failed() throws Exception {
        // given: a turn whose answer fails to store shortly before the timeout
        AtomicBoolean failNext = new AtomicBoolean();
        SessionStore store = new ForwardingSessionStore(InMemorySessionStore.create(clock)) {
            @Override
            public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
                if (failNext.getAndSet(false)) {
                    throw new StoreException("disk full");
                }
                return super.append(sessionId, entries, idempotencyKey);
            }
        };
        WindowChatMemory memory = memory(store);
        memory.add(UserMessage.from("q"));
        clock.advance(TIMEOUT.minusSeconds(10));
        failNext.set(true);
        assertThatThrownBy(() -> memory.add(AiMessage.from("a"))).isInstanceOf(StoreException.class);

        // when: another request starts past the timeout from the question, within it from the failed answer
        clock.advance(Duration.ofSeconds(20));

        // then: the turn still runs (its last message was the failed answer), so the other request is refused
        assertThatThrownBy(() -> onAnotherThread(() -> memory.add(UserMessage.from("other request"))))
                .hasCauseInstanceOf(SessionBusyException.class);
        // and once a timeout has passed since that answer, it is let in
        clock.advance(TIMEOUT);
        onAnotherThread(() -> memory.add(UserMessage.from("other request")));
        List<ChatMessage> log = store.read("s", 0, 10).stream().map(Entry::message).toList();
        assertThat(log).containsExactly(UserMessage.from("q"), UserMessage.from("other request"));
    }

    private WindowChatMemory memory(SessionStore store) {
        return WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(20).clock(clock)
                .openTurnTimeout(TIMEOUT).concurrentSends(ConcurrentSends.refuse()).build();
    }

    private static void onAnotherThread(Runnable call) throws Exception {
        FutureTask<Void> task = new FutureTask<>(call, null);
        new Thread(task).start();
        task.get(10, TimeUnit.SECONDS);
    }
}
