package io.github.memorypack.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionBusyException;
import io.github.memorypack.core.SessionStore;
import java.time.Duration;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The concurrent-sends example of core/README.md, verbatim, and what each setting does to a second request. */
class ConcurrentSendsReadmeExampleTest {

    private final SessionStore store = InMemorySessionStore.create();

    @Test
    void should_refuse_a_second_request_before_storing_it_when_readme_example_is_used() throws Exception {
        // README example starts
        ChatMemoryProvider memories = WindowChatMemory.builder()
                .chatMemoryStore(store)
                .maxMessages(20)
                .concurrentSends(ConcurrentSends.refuse())   // or queue(Duration.ofSeconds(10)), branch()
                .provider();
        // README example ends
        ChatMemory memory = memories.get("ana");
        memory.add(UserMessage.from("first request"));

        // when / then: another thread (another request) starts while the first one's turn runs
        FutureTask<Void> second = new FutureTask<>(() -> memory.add(UserMessage.from("second request")), null);
        new Thread(second).start();
        assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(SessionBusyException.class)
                .satisfies(e -> assertThat(((SessionBusyException) e).sessionId()).isEqualTo("ana"));
        assertThat(store.read("ana", 0, 10)).extracting(Entry::message).containsExactly(UserMessage.from("first request"));
        memory.add(AiMessage.from("first answer"));
        FutureTask<Void> later = new FutureTask<>(() -> memory.add(UserMessage.from("second request")), null);
        new Thread(later).start();
        later.get(10, TimeUnit.SECONDS); // the first turn has closed: in it goes
    }

    @Test
    void should_let_the_second_request_wait_for_the_first_answer_when_sends_queue() throws Exception {
        // given
        ChatMemory memory = WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(20)
                .concurrentSends(ConcurrentSends.queue(Duration.ofSeconds(10))).build();
        memory.add(UserMessage.from("first request"));

        // when: the second request reads its view, as AiServices does before it adds its question
        FutureTask<java.util.List<dev.langchain4j.data.message.ChatMessage>> second =
                new FutureTask<>(memory::messages);
        Thread thread = new Thread(second);
        thread.start();
        while (thread.getState() != Thread.State.TIMED_WAITING && !second.isDone()) {
            Thread.onSpinWait();
        }
        memory.add(AiMessage.from("first answer"));

        // then: it continues from the first request's closed turn
        assertThat(second.get(10, TimeUnit.SECONDS)).containsExactly(UserMessage.from("first request"),
                AiMessage.from("first answer"));
    }

    @Test
    void should_refuse_a_zero_wait_and_name_every_setting_when_built() {
        assertThatThrownBy(() -> ConcurrentSends.queue(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ConcurrentSends.queue()).isEqualTo(ConcurrentSends.queue(ConcurrentSends.DEFAULT_MAX_WAIT))
                .hasToString("ConcurrentSends.queue(PT30S)");
        assertThat(ConcurrentSends.branch()).hasToString("ConcurrentSends.branch()");
        assertThat(ConcurrentSends.refuse().maxWait()).isZero();
    }
}
