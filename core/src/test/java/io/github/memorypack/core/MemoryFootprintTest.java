package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a memory object holds: {@code AiServices} keeps one per memory id until it is evicted, so a
 * server that has seen 100,000 sessions holds 100,000 of them. Each holds its id and references to
 * what every memory of its provider shares; views live in the provider's bounded {@link ViewCache},
 * token counts of system messages and summaries in the shared rules' bounded map. (The heap these
 * take is measured by the benchmarks' {@code HeapBenchmark}, not asserted here.)
 */
class MemoryFootprintTest {

    private final InMemorySessionStore store = InMemorySessionStore.create();

    /** The engine's per-session part of a memory (every memory class wraps the engine in its {@code memory} field). */
    static SessionMemory sessionMemoryOf(ChatMemory memory) throws ReflectiveOperationException {
        if (memory instanceof MemoryEngine engine) {
            return engine.memory();
        }
        Field engine = memory.getClass().getDeclaredField("memory");
        engine.setAccessible(true);
        return ((MemoryEngine) engine.get(memory)).memory();
    }

    private static void chat(ChatMemory memory, String system, String question) {
        memory.add(SystemMessage.from(system));
        memory.messages();
        memory.add(UserMessage.from(question));
        memory.add(AiMessage.from("An answer to: " + question));
    }

    @Test
    void should_share_one_set_of_settings_when_memories_come_from_one_provider() throws Exception {
        // given
        List<ChatMemoryProvider> providers = List.of(
                MemoryOptions.builder().chatMemoryStore(store).build().provider(TestStrategies.BUFFER),
                MemoryOptions.builder().chatMemoryStore(store).build()
                        .provider(TestStrategies.window(MemoryListener.Overflow.Unit.MESSAGES, 10, false)),
                MemoryOptions.builder().chatMemoryStore(store).tokenizer(Tokenizers.o200k()).build()
                        .provider(TestStrategies.window(MemoryListener.Overflow.Unit.TOKENS, 500, false)),
                MemoryOptions.builder().chatMemoryStore(store).summarizer(Summarizer.extractive()).build()
                        .provider(TestStrategies.SUMMARY));

        for (ChatMemoryProvider provider : providers) {
            // when
            SessionMemory first = sessionMemoryOf(provider.get("alice"));
            SessionMemory second = sessionMemoryOf(provider.get("bob@example.com"));

            // then
            assertThat(second.shared()).as("shared settings of %s", provider).isSameAs(first.shared());
            assertThat(second.rules()).isSameAs(first.rules());
            assertThat(second.id()).isEqualTo("bob@example.com");
        }
    }

    @Test
    void should_not_change_earlier_memories_when_the_builder_changes_after_build() throws Exception {
        // given
        List<String> seen = new ArrayList<>();
        MemoryOptions.Builder builder = MemoryOptions.builder().chatMemoryStore(store);
        ChatMemory before = builder.build().memory(TestStrategies.BUFFER, "a");

        // when
        builder.listener(new MemoryListener() {
            @Override
            public void onView(ViewShown view) {
                seen.add(view.sessionId());
            }
        });
        ChatMemory after = builder.build().memory(TestStrategies.BUFFER, "b");
        before.messages();
        after.messages();

        // then
        assertThat(sessionMemoryOf(after).shared()).isNotSameAs(sessionMemoryOf(before).shared());
        assertThat(seen).containsExactly("b");
    }

    @Test
    void should_keep_at_most_the_cache_size_of_views_when_many_sessions_are_read() throws Exception {
        // given
        ChatMemoryProvider provider = MemoryOptions.builder().chatMemoryStore(store).viewCacheSize(10).build()
                .provider(TestStrategies.BUFFER);
        List<ChatMemory> memories = new ArrayList<>();

        // when
        for (int i = 0; i < 100; i++) {
            ChatMemory memory = provider.get("user-" + i);
            chat(memory, "Be brief.", "question " + i);
            memory.messages();
            memories.add(memory);
        }

        // then
        assertThat(sessionMemoryOf(memories.get(0)).shared().cache.size()).isEqualTo(10);
        // a memory whose view was dropped reads its session again
        assertThat(memories.get(0).messages()).containsExactly(SystemMessage.from("Be brief."),
                UserMessage.from("question 0"), AiMessage.from("An answer to: question 0"));
    }

    @Test
    void should_keep_the_view_of_a_memory_read_every_turn_when_other_sessions_come_and_go() throws Exception {
        // given: a cache of 3 views, and a memory that is read between every two new sessions
        ChatMemoryProvider provider = MemoryOptions.builder().chatMemoryStore(store).viewCacheSize(3).build()
                .provider(TestStrategies.BUFFER);
        ChatMemory busy = provider.get("busy");
        chat(busy, "Be brief.", "first question");
        busy.messages();
        SessionMemory busySession = sessionMemoryOf(busy);
        ViewCache cache = busySession.shared().cache;

        // when
        List<ChatMemory> others = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ChatMemory other = provider.get("other-" + i);
            chat(other, "Be brief.", "question " + i);
            other.messages();
            others.add(other);
            busy.messages();
        }

        // then: the busy memory's view stays (used since it last came up), the others take turns
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.get(busySession)).isNotNull();
        assertThat(cache.get(sessionMemoryOf(others.get(19)))).isNotNull();
        assertThat(cache.get(sessionMemoryOf(others.get(0)))).isNull();
        assertThat(busy.messages()).containsExactly(SystemMessage.from("Be brief."),
                UserMessage.from("first question"), AiMessage.from("An answer to: first question"));
    }

    @Test
    void should_keep_a_bounded_number_of_token_counts_when_every_session_has_its_own_system_message()
            throws Exception {
        // given
        ChatMemoryProvider provider = MemoryOptions.builder().chatMemoryStore(store).tokenizer(Tokenizers.o200k()).build()
                .provider(TestStrategies.window(MemoryListener.Overflow.Unit.TOKENS, 2_000, false));
        int sessions = TokenCounts.PINNED_COUNTS + 100;
        ChatMemory last = null;

        // when
        for (int i = 0; i < sessions; i++) {
            last = provider.get("user-" + i);
            chat(last, "You are the assistant of user " + i + ".", "question " + i);
        }

        // then
        ViewRules rules = sessionMemoryOf(last).rules();
        assertThat(rules.counts().pinnedCountsHeld()).isEqualTo(TokenCounts.PINNED_COUNTS);
        assertThat(last.messages()).startsWith(SystemMessage.from("You are the assistant of user " + (sessions - 1) + "."));
    }
}
