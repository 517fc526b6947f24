package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The root README's "Switching from LangChain4j" examples, compiled and run: each LangChain4j 1.19
 * memory and the Memory Pack one that replaces it by changing the class name, fed the same
 * conversation, show the same system message and newest messages after every turn; the documented
 * difference: ours cuts at whole turns, so it never starts with an answer whose question is gone.
 */
class MigrationTest {

    private final TokenCountEstimator estimator = Tokenizers.o200k();
    private final ChatMemoryStore store = new InMemoryChatMemoryStore();
    private final Object memoryId = "user-42";

    @Test
    void should_show_what_langchain4j_shows_when_only_the_class_name_changed() {
        // README before starts
        ChatMemory a = MessageWindowChatMemory.withMaxMessages(10);
        ChatMemory b = MessageWindowChatMemory.builder().id(memoryId).maxMessages(10).chatMemoryStore(store).build();
        ChatMemory c = MessageWindowChatMemory.builder().id(memoryId).dynamicMaxMessages(id -> 10).build();
        ChatMemory d = TokenWindowChatMemory.withMaxTokens(1_000, estimator);
        ChatMemory e = TokenWindowChatMemory.builder().id(memoryId).maxTokens(1_000, estimator).build();
        ChatMemoryProvider f = id -> MessageWindowChatMemory.builder().id(id).maxMessages(10).build();
        // README before ends

        // README after starts
        ChatMemory a2 = WindowChatMemory.withMaxMessages(10);
        ChatMemory b2 = WindowChatMemory.builder().id(memoryId).maxMessages(10).chatMemoryStore(store).build();
        ChatMemory c2 = WindowChatMemory.builder().id(memoryId).dynamicMaxMessages(id -> 10).build();
        ChatMemory d2 = WindowChatMemory.withMaxTokens(1_000, estimator);
        ChatMemory e2 = WindowChatMemory.builder().id(memoryId).maxTokens(1_000, estimator).build();
        ChatMemoryProvider f2 = id -> WindowChatMemory.builder().id(id).maxMessages(10).build();
        // README after ends

        // b and b2 share a LangChain4j store: give ours its own of the same kind
        b2 = WindowChatMemory.builder().id(memoryId).maxMessages(10).chatMemoryStore(new InMemoryChatMemoryStore())
                .build();
        List<ChatMemory[]> pairs = List.of(new ChatMemory[] {a, a2}, new ChatMemory[] {b, b2},
                new ChatMemory[] {c, c2}, new ChatMemory[] {d, d2}, new ChatMemory[] {e, e2},
                new ChatMemory[] {f.get(memoryId), f2.get(memoryId)});
        for (ChatMemory[] pair : pairs) {
            assertThat(pair[1].id()).isEqualTo(pair[0].id());
            for (ChatMemory memory : pair) {
                memory.add(SystemMessage.from("You are terse."));
            }
            for (int turn = 0; turn < 40; turn++) {
                for (ChatMemory memory : pair) {
                    memory.add(UserMessage.from("Question " + turn + ": " + "what about this? ".repeat(turn % 7)));
                    memory.add(AiMessage.from("Answer " + turn + ": " + "it depends. ".repeat(turn % 5)));
                }
                List<ChatMessage> theirs = pair[0].messages();
                List<ChatMessage> ours = pair[1].messages();
                // the same system message first, then the same newest messages; where LangChain4j's
                // cut leaves the answer of a turn whose question it evicted, ours leaves the whole
                // turn out (and a token window may keep up to two turns less: ours counts reply priming
                // too, and, read between two turns, leaves room for the question that comes next)
                assertThat(ours.get(0)).isEqualTo(theirs.get(0));
                List<ChatMessage> oursAfterSystem = ours.subList(1, ours.size());
                assertThat(theirs).as("turn %d", turn).endsWith(oursAfterSystem.toArray(new ChatMessage[0]));
                assertThat(oursAfterSystem.get(0)).isInstanceOf(UserMessage.class);
                List<ChatMessage> onlyTheirs = theirs.subList(1, theirs.size() - oursAfterSystem.size());
                if (pair[0] instanceof TokenWindowChatMemory) {
                    assertThat(onlyTheirs.size()).isBetween(0, 5);
                } else {
                    assertThat(onlyTheirs).as("turn %d", turn).allMatch(m -> m instanceof AiMessage).hasSizeLessThan(2);
                }
            }
        }
    }
}
