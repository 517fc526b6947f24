package io.github.memorypack.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.List;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/** The prompt-cache accounting every replay (the demo, the benchmarks) uses. */
class ReplayCacheTest {

    /** Every message costs 300 tokens, whatever its text. */
    private static final ToIntFunction<ChatMessage> TOKENS = m -> 300;

    private static final ChatMessage SYSTEM = SystemMessage.from("system");

    @Test
    void should_serve_whole_blocks_of_the_shared_prefix_when_it_reaches_the_minimum() {
        // given: a request that repeats four messages (1,200 tokens) of the previous one and adds two
        List<ChatMessage> previous = List.of(SYSTEM, UserMessage.from("q1"), AiMessage.from("a1"), UserMessage.from("q2"));
        List<ChatMessage> request = List.of(SYSTEM, UserMessage.from("q1"), AiMessage.from("a1"), UserMessage.from("q2"),
                AiMessage.from("a2"), UserMessage.from("q3"));

        // when
        int cached = Replay.cachedTokens(previous, request, TOKENS);

        // then: 1,200 tokens shared, served in whole 128-token blocks
        assertThat(cached).isEqualTo(1_152);
    }

    @Test
    void should_serve_nothing_when_the_shared_prefix_is_under_the_minimum() {
        // given: three messages (900 tokens) shared
        List<ChatMessage> previous = List.of(SYSTEM, UserMessage.from("q1"), AiMessage.from("a1"));
        List<ChatMessage> request = List.of(SYSTEM, UserMessage.from("q1"), AiMessage.from("a1"), UserMessage.from("q2"));

        // when / then
        assertThat(Replay.cachedTokens(previous, request, TOKENS)).isZero();
    }

    @Test
    void should_stop_at_the_first_changed_message_when_a_window_slides() {
        // given: the oldest turn evicted, so everything after the system message moved
        List<ChatMessage> previous = List.of(SYSTEM, UserMessage.from("q1"), AiMessage.from("a1"), UserMessage.from("q2"),
                AiMessage.from("a2"), UserMessage.from("q3"));
        List<ChatMessage> request = List.of(SYSTEM, UserMessage.from("q2"), AiMessage.from("a2"), UserMessage.from("q3"),
                AiMessage.from("a3"), UserMessage.from("q4"));

        // when / then: only the system message is shared, under the minimum
        assertThat(Replay.cachedTokens(previous, request, TOKENS)).isZero();
    }

    @Test
    void should_price_cached_tokens_at_the_factor_when_computing_effective_cost() {
        // when / then: 1,000 uncached + 0.1 x 9,000 cached
        assertThat(Replay.effectiveTokens(10_000, 9_000, 0.1)).isEqualTo(1_900.0);
    }
}
