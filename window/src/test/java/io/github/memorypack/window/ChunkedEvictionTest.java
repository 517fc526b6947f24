package io.github.memorypack.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: chunked eviction keeps consecutive requests prefix-stable. Over a long replay (300 turns
 * of varied length, requests as {@code AiServices} builds them: view, then the new user message),
 * every request between two evictions is exactly the previous request plus the previous answer and
 * the new question; every request, its question included, is within the limit; an eviction happens
 * only when the window would pass its limit with room for the question (the longest of the last three
 * plus a quarter, as the window estimates it without the listeners), and drops it to the low mark.
 */
class ChunkedEvictionTest {

    private static final SystemMessage SYSTEM = SystemMessage.from("You are a travel agent. Keep answers short.");
    private static final int TURNS = 300;

    private static List<String[]> conversation() {
        SplittableRandom random = new SplittableRandom(42);
        List<String[]> turns = new ArrayList<>();
        for (int i = 0; i < TURNS; i++) {
            turns.add(new String[] {"question " + i + " " + "about Lisbon ".repeat(2 + random.nextInt(20)),
                    "answer " + i + " " + "with details on trams and food ".repeat(3 + random.nextInt(30))});
        }
        return turns;
    }

    /** Replays the conversation; returns each request as the model would receive it. */
    private static List<List<ChatMessage>> replay(ChatMemory memory) {
        List<List<ChatMessage>> requests = new ArrayList<>();
        for (String[] turn : conversation()) {
            memory.add(SYSTEM);
            List<ChatMessage> request = new ArrayList<>(memory.messages());
            UserMessage user = UserMessage.from(turn[0]);
            request.add(user);
            requests.add(request);
            memory.add(user);
            memory.add(AiMessage.from(turn[1]));
        }
        return requests;
    }

    @Test
    void should_send_each_request_as_the_previous_one_plus_the_new_messages_between_evictions() {
        // given
        int limit = 2_000;
        WindowChatMemory memory = WindowChatMemory.builder().id("s").maxTokens(limit).chunkedEviction()
                .listener(MemoryListener.NONE).build();

        // when
        List<List<ChatMessage>> requests = replay(memory);

        // then
        int evictions = 0;
        for (int i = 1; i < requests.size(); i++) {
            List<ChatMessage> previous = new ArrayList<>(requests.get(i - 1));
            previous.add(AiMessage.from(conversation().get(i - 1)[1]));
            List<ChatMessage> current = requests.get(i);
            List<ChatMessage> view = current.subList(0, current.size() - 1);
            int viewTokens = Tokenizers.o200k().estimateTokenCountInMessages(view);
            int longestQuestion = 0;
            for (int q = Math.max(0, i - 3); q < i; q++) {
                longestQuestion = Math.max(longestQuestion,
                        Tokenizers.o200k().estimateTokenCountInMessage(UserMessage.from(conversation().get(q)[0])));
            }
            int room = longestQuestion + (longestQuestion + 3) / 4;
            assertThat(viewTokens).as("request %d leaves room for its question", i).isLessThanOrEqualTo(limit - room);
            if (view.equals(previous)) {
                continue; // prefix-stable: the previous request and its answer, then the new question
            }
            evictions++;
            int grown = Tokenizers.o200k().estimateTokenCountInMessages(previous);
            assertThat(grown + room).as("evicted at request %d only because the window would pass its limit", i)
                    .isGreaterThan(limit);
            assertThat(viewTokens).as("request %d drops to the low mark", i)
                    .isLessThanOrEqualTo((int) (limit * WindowChatMemory.DEFAULT_LOW_WATERMARK));
            assertThat(view.get(0)).isEqualTo(SYSTEM);
            assertThat(view.get(1)).isInstanceOf(UserMessage.class);
        }
        assertThat(evictions).as("evictions over %d requests", TURNS).isBetween(10, TURNS / 4);
    }

    @Test
    void should_change_the_prefix_on_almost_every_request_when_the_window_slides() {
        // given: the same replay through a sliding window (the control)
        WindowChatMemory memory = WindowChatMemory.builder().id("s").maxTokens(2_000).listener(MemoryListener.NONE)
                .build();

        // when
        List<List<ChatMessage>> requests = replay(memory);

        // then
        int changed = 0;
        for (int i = 1; i < requests.size(); i++) {
            List<ChatMessage> previous = new ArrayList<>(requests.get(i - 1));
            previous.add(AiMessage.from(conversation().get(i - 1)[1]));
            List<ChatMessage> current = requests.get(i);
            if (!current.subList(0, current.size() - 1).equals(previous)) {
                changed++;
            }
        }
        assertThat(changed).isGreaterThan(TURNS / 2);
    }

    @Test
    void should_keep_the_same_start_across_memory_objects_when_the_anchor_is_in_the_state() {
        // given: two instances of the same window on one store, taking turns
        InMemorySessionStore store = InMemorySessionStore.create();
        WindowChatMemory a = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(10)
                .chunkedEviction(0.5).listener(MemoryListener.NONE).build();
        WindowChatMemory b = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(10)
                .chunkedEviction(0.5).listener(MemoryListener.NONE).build();

        // when / then
        for (int i = 0; i < 40; i++) {
            WindowChatMemory now = i % 2 == 0 ? a : b;
            now.add(UserMessage.from("q" + i));
            now.add(AiMessage.from("a" + i));
            assertThat(a.messages()).isEqualTo(b.messages());
            assertThat(a.messages().size()).isLessThanOrEqualTo(10);
        }
    }

    @Test
    void should_store_the_window_start_at_the_next_view_when_storing_it_lost_a_race() {
        // given: a real store on which the first write of a window start loses its compare-and-set
        SessionStore store = new LosesFirstWindowStart(InMemorySessionStore.create());
        WindowChatMemory memory = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(10)
                .chunkedEviction(0.5).listener(MemoryListener.NONE).build();
        for (int i = 0; i < 20 && !((LosesFirstWindowStart) store).lost; i++) {
            memory.add(UserMessage.from("q" + i));
            memory.add(AiMessage.from("a" + i));
            memory.messages();
        }
        assertThat(((LosesFirstWindowStart) store).lost).isTrue();
        assertThat(store.state("s").attributes().keySet()).noneMatch(k -> k.startsWith("memory-pack.window-start."));

        // when: the next view, with no new turn
        memory.messages();

        // then: the start it shows is in the state, for every other memory object of the session
        assertThat(store.state("s").attributes().keySet()).anyMatch(k -> k.startsWith("memory-pack.window-start."));
    }

    /** Delegates to a real store; the first state write carrying a window start fails as a lost race. */
    private static final class LosesFirstWindowStart extends ForwardingSessionStore {
        boolean lost;

        LosesFirstWindowStart(SessionStore store) {
            super(store);
        }

        @Override
        public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState next) {
            if (!lost && next.attributes().keySet().stream().anyMatch(k -> k.startsWith("memory-pack.window-start."))) {
                lost = true;
                return Optional.empty();
            }
            return delegate.compareAndSetState(sessionId, expectedVersion, next);
        }
    }
}
