package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.Conversations;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.RequestScope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code SessionStore.getMessages(id)}, the store's LangChain4j face, holds the conversation as
 * LangChain4j expects a {@code ChatMemoryStore} to hold it: after adds, a tool turn, {@code set()}
 * (LangChain4j's "replace all messages", with the whole conversation), a retried request,
 * {@code clear()} and a {@code set()} without a system message, it equals what LangChain4j's own
 * {@code MessageWindowChatMemory} (system message kept first, large enough to evict nothing) holds on an
 * {@code InMemoryChatMemoryStore} after the same calls — of the retried request, the latest attempt's
 * calls. No bookkeeping record, no superseded attempt; the raw log keeps them.
 */
class StoreConversationTest {

    private static final String ID = "conversation-1";
    private static final ToolExecutionRequest STOCK = ToolExecutionRequest.builder().id("call_1").name("stock")
            .arguments("{\"item\":\"tea\"}").build();

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_hold_what_langchain4j_s_own_memory_holds_when_set_clear_and_retries_ran(Strategy strategy,
            StoreKind kind) throws Exception {
        // given: our memory and LangChain4j's, called alike
        io.github.memorypack.core.SessionStore store = kind.open(dir);
        try {
            ChatMemory ours = strategy.provider(store).get(ID);
            InMemoryChatMemoryStore theirStore = new InMemoryChatMemoryStore();
            ChatMemory theirs = MessageWindowChatMemory.builder().id(ID).maxMessages(10_000)
                    .alwaysKeepSystemMessageFirst(true).chatMemoryStore(theirStore).build();
            List<List<ChatMessage>> seen = new ArrayList<>();
            Consumer<Consumer<ChatMemory>> both = call -> {
                call.accept(theirs);
                call.accept(ours);
                // then, after every step
                assertThat(store.getMessages(ID)).as("step %d", seen.size() + 1).isEqualTo(theirStore.getMessages(ID));
                seen.add(theirStore.getMessages(ID));
            };

            // when
            both.accept(m -> {
                m.add(SystemMessage.from(Shop.SYSTEM));
                m.add(UserMessage.from(Shop.ASK_TEA));
                m.add(AiMessage.from(STOCK));
                m.add(ToolExecutionResultMessage.from(STOCK, "tea: 12 packs"));
                m.add(AiMessage.from("Yes, 12 packs."));
                m.add(UserMessage.from(Shop.INTRODUCE));
                m.add(AiMessage.from("Hello Bo."));
            });
            List<ChatMessage> corrected = new ArrayList<>(theirs.messages());
            corrected.set(corrected.size() - 1, AiMessage.from("Hello Bo from Porto."));
            both.accept(m -> m.set(corrected)); // the whole conversation, as LangChain4j's set takes it
            both.accept(m -> {
                m.add(UserMessage.from(Shop.ASK_RECOMMENDATION));
                m.add(AiMessage.from("Sencha."));
            });
            // a retried request: LangChain4j's memory gets the latest attempt only
            RequestScope.run("retried", () -> {
                ours.add(UserMessage.from(Shop.ASK_MATCHA));
                ours.add(AiMessage.from("Let me look... (first attempt)"));
            });
            both.accept(m -> {
                if (m == ours) {
                    RequestScope.run("retried", () -> {
                        m.add(UserMessage.from(Shop.ASK_MATCHA));
                        m.add(AiMessage.from("Yes, matcha too."));
                    });
                } else {
                    m.add(UserMessage.from(Shop.ASK_MATCHA));
                    m.add(AiMessage.from("Yes, matcha too."));
                }
            });
            both.accept(m -> {
                m.clear();
                m.add(SystemMessage.from("You are a coffee shop assistant."));
                m.add(UserMessage.from(Shop.ASK_COFFEE));
                m.add(AiMessage.from("Espresso."));
            });
            both.accept(m -> m.set(List.of(UserMessage.from(Shop.ASK_COFFEE), AiMessage.from("Espresso or filter."))));
            both.accept(m -> {
                m.add(SystemMessage.from(Shop.SYSTEM));
                m.add(UserMessage.from(Shop.ASK_SENCHA));
                m.add(AiMessage.from("Yes."));
            });

            // then: the raw log still has what the conversation leaves out
            List<Entry> log = store.read(store.sessions().get(0), 0, Integer.MAX_VALUE);
            assertThat(log.size()).as("the raw log").isGreaterThan(seen.get(seen.size() - 1).size());
            assertThat(Conversations.historyAsText(store, ID)).as("history as text").doesNotContain("memory-pack-record");
        } finally {
            StoreKind.close(store);
        }
    }
}
