package io.github.memorypack.benchmarks.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Checks that the benchmarks measure what they claim: the same deterministic conversation, a
 * pre-fill that stores what {@code add} would, and memories that show equivalent windows.
 */
class HarnessTest {

    private static final Conversation CONVERSATION = Conversation.standard();
    private static final TokenCountEstimator O200K = Tokenizers.o200k();

    @Test
    void should_generate_the_same_varied_text_when_called_twice() {
        // given
        Conversation again = Conversation.standard();

        // when
        List<ChatMessage> first = CONVERSATION.messages(0, 2_000);
        List<ChatMessage> second = again.messages(0, 2_000);

        // then
        assertThat(second).isEqualTo(first);
        assertThat(again.messages(0, 2 * Conversation.POOL_PAIRS)).isEqualTo(CONVERSATION.messages(0, 2 * Conversation.POOL_PAIRS));
        assertThat(CONVERSATION.message(2L * Conversation.POOL_PAIRS)).isSameAs(first.get(0));
        List<Integer> userTokens = new ArrayList<>();
        List<Integer> replyTokens = new ArrayList<>();
        for (int i = 0; i < first.size(); i++) {
            (i % 2 == 0 ? userTokens : replyTokens).add(O200K.estimateTokenCountInMessage(first.get(i)));
        }
        assertThat(first.get(0)).isInstanceOf(UserMessage.class);
        assertThat(median(userTokens)).isBetween(25, 60);
        assertThat(median(replyTokens)).isBetween(120, 260);
        assertThat(Collections.max(replyTokens)).isGreaterThan(4 * median(replyTokens));
        assertThat(Collections.min(userTokens)).isLessThan(15);
    }

    @Test
    void should_show_what_added_messages_show_when_the_log_is_prefilled() {
        // given
        int history = 300;
        ChatMemory added = WindowChatMemory.builder().id(Memories.SESSION).chatMemoryStore(InMemorySessionStore.create())
                .maxTokens(2_000).tokenizer(O200K).build();
        for (ChatMessage message : CONVERSATION.messages(0, history)) {
            added.add(message);
        }
        ChatMemory prefilled = Memories.ourTokenWindow(CONVERSATION, history, 2_000);

        // when
        List<ChatMessage> expected = Memories.turn(added, CONVERSATION.message(history), CONVERSATION.message(history + 1));
        List<ChatMessage> actual = Memories.turn(prefilled, CONVERSATION.message(history), CONVERSATION.message(history + 1));

        // then
        assertThat(actual).isEqualTo(expected).isNotEmpty();
    }

    @Test
    void should_show_the_same_newest_messages_when_both_message_windows_run_a_turn() {
        // given
        int k = 20;
        ChatMemory ours = Memories.ourMessageWindow(CONVERSATION, 1_000, k);
        ChatMemory theirs = Memories.langChain4jMessageWindow(CONVERSATION, 1_000, k);

        // when
        List<ChatMessage> ourView = Memories.turn(ours, CONVERSATION.message(1_000), CONVERSATION.message(1_001));
        List<ChatMessage> theirView = Memories.turn(theirs, CONVERSATION.message(1_000), CONVERSATION.message(1_001));

        // then: LangChain4j shows exactly k; ours snaps the cut to a user message, so k or k - 1
        assertThat(theirView).hasSize(k);
        assertThat(ourView).hasSizeBetween(k - 1, k);
        assertThat(ourView.get(0)).isInstanceOf(UserMessage.class);
        assertThat(theirView.subList(k - ourView.size(), k)).isEqualTo(ourView);
        assertThat(ourView.get(ourView.size() - 1)).isSameAs(CONVERSATION.message(1_000));
    }

    @Test
    void should_fill_both_token_windows_to_the_limit_when_prefilled() {
        // given
        int maxTokens = 10_000;
        int history = 400; // about 55,000 tokens
        ChatMemory ours = Memories.ourTokenWindow(CONVERSATION, history, maxTokens);
        ChatMemory theirs = Memories.langChain4jTokenWindow(CONVERSATION, history, maxTokens);

        // when
        List<ChatMessage> ourView = Memories.turn(ours, CONVERSATION.message(history), CONVERSATION.message(history + 1));
        List<ChatMessage> theirView = Memories.turn(theirs, CONVERSATION.message(history), CONVERSATION.message(history + 1));

        // then: both views are full windows ending with the new user message
        for (List<ChatMessage> view : List.of(ourView, theirView)) {
            int tokens = O200K.estimateTokenCountInMessages(view);
            assertThat(tokens).isLessThanOrEqualTo(maxTokens).isGreaterThan(maxTokens - 2_000);
            assertThat(view.get(view.size() - 1)).isSameAs(CONVERSATION.message(history));
        }
    }

    private static int median(List<Integer> values) {
        List<Integer> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
