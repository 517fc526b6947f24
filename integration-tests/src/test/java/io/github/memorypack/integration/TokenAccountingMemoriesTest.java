package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Token accounting and calibration through the memories of every strategy. */
class TokenAccountingMemoriesTest {

    /** A real ChatModel (LangChain4j's default chat() drives the listeners) reporting fixed usage. */
    private static ChatModel modelReporting(int input, List<ChatModelListener> listeners) {
        return new ChatModel() {
            @Override
            public ChatResponse doChat(ChatRequest request) {
                return ChatResponse.builder().aiMessage(AiMessage.from("hi"))
                        .tokenUsage(new TokenUsage(input, 7)).build();
            }

            @Override
            public List<ChatModelListener> listeners() {
                return listeners;
            }
        };
    }

    @Test
    void should_shrink_a_token_window_by_the_factor_when_calibration_is_on_and_not_when_off() {
        // given: provider usage 20% above our estimate, for two windows of 400 tokens on one store
        TokenAccounting accounting = TokenAccounting.create();
        InMemorySessionStore store = InMemorySessionStore.create();
        WindowChatMemory calibrated = WindowChatMemory.builder().id("c").chatMemoryStore(store).maxTokens(400)
                .calibrateWith(accounting).listener(MemoryListener.NONE).build();
        WindowChatMemory plain = WindowChatMemory.builder().id("p").chatMemoryStore(store).maxTokens(400)
                .tokenAccounting(accounting).listener(MemoryListener.NONE).build();
        for (int i = 0; i < 40; i++) {
            for (WindowChatMemory memory : List.of(calibrated, plain)) {
                memory.add(UserMessage.from("question " + i + " about the trip to Lisbon in spring"));
                memory.add(AiMessage.from("answer " + i + " with a few details about Lisbon in spring"));
            }
        }
        for (int i = 0; i < 50; i++) {
            accounting.recordRequest("c", 1_000, new TokenUsage(1_200, 1));
            accounting.recordRequest("p", 1_000, new TokenUsage(1_200, 1));
        }

        // when
        int calibratedTokens = Tokenizers.o200k().estimateTokenCountInMessages(calibrated.messages());
        int plainTokens = Tokenizers.o200k().estimateTokenCountInMessages(plain.messages());

        // then: what the provider bills (estimate x 1.2) stays within 400 only for the calibrated window
        assertThat(calibratedTokens * 1.2).isLessThanOrEqualTo(400);
        assertThat(plainTokens).isLessThanOrEqualTo(400).isGreaterThan((int) (400 / 1.2) + 1);
    }

    @Test
    void should_calibrate_and_record_folds_under_the_memory_id_when_the_id_is_not_a_plain_session_id() {
        // given: a memory id that maps to an encoded session id ("~..."), and usage 20% above our estimate
        String id = "user@example.com";
        TokenAccounting accounting = TokenAccounting.create();
        InMemorySessionStore store = InMemorySessionStore.create();
        WindowChatMemory window = WindowChatMemory.builder().id(id).chatMemoryStore(store).maxTokens(400)
                .calibrateWith(accounting).listener(MemoryListener.NONE).build();
        SummaryChatMemory summary = SummaryChatMemory.builder().id(id + "/summary").chatMemoryStore(store)
                .summarizer(Summarizer.extractive()).foldEveryTurns(1).tokenAccounting(accounting)
                .listener(MemoryListener.NONE).build();
        for (int i = 0; i < 40; i++) {
            window.add(UserMessage.from("question " + i + " about the trip to Lisbon in spring"));
            window.add(AiMessage.from("answer " + i + " with a few details about Lisbon in spring"));
        }
        for (int i = 0; i < 50; i++) {
            accounting.recordRequest(id, 1_000, new TokenUsage(1_200, 1));
        }

        // when
        int windowTokens = Tokenizers.o200k().estimateTokenCountInMessages(window.messages());
        summary.add(UserMessage.from("I live in Lyon."));
        summary.add(AiMessage.from("Noted: Lyon."));
        summary.add(UserMessage.from("And I work in Paris."));
        summary.add(AiMessage.from("Noted: Paris."));
        summary.messages();

        // then: the window applies the factor recorded under its memory id, the folds are charged to theirs
        assertThat(windowTokens * 1.2).isLessThanOrEqualTo(400);
        assertThat(accounting.report(id + "/summary").summarizerCalls()).isPositive();
        assertThat(accounting.report(SessionIds.of(id + "/summary")).summarizerCalls()).isZero();
    }

    @Test
    void should_charge_a_bound_request_to_the_memory_id_when_the_id_is_not_a_plain_session_id() {
        // given: a memory whose id maps to an encoded session id ("~...")
        String id = "user@example.com";
        TokenAccounting accounting = TokenAccounting.create();
        ChatModel model = modelReporting(30, List.of(accounting.listener(Tokenizers.o200k())));
        BufferChatMemory memory = BufferChatMemory.builder().id(id).tokenAccounting(accounting)
                .listener(MemoryListener.NONE).build();
        memory.add(UserMessage.from("hello there"));

        // when: the view binds the session, the request that follows is charged to it
        model.chat(memory.messages());

        // then
        assertThat(accounting.report(id).requests()).isEqualTo(1);
        assertThat(accounting.report(id).reportedPromptTokens()).isEqualTo(30);
        assertThat(accounting.report(SessionIds.of(id)).requests()).isZero();
    }

    @Test
    void should_add_up_reports_per_strategy_when_memories_of_several_strategies_share_a_ledger() {
        // given
        TokenAccounting accounting = TokenAccounting.create();
        InMemorySessionStore store = InMemorySessionStore.create();
        BufferChatMemory buffer = BufferChatMemory.builder().id("b").chatMemoryStore(store).tokenAccounting(accounting)
                .build();
        WindowChatMemory window = WindowChatMemory.builder().id("w").chatMemoryStore(store).maxMessages(4)
                .tokenAccounting(accounting).build();

        // when: each view binds its session; the requests that follow are charged to it
        buffer.messages();
        accounting.recordRequest("b", 10, new TokenUsage(12, 1));
        window.messages();
        accounting.recordRequest("w", 20, new TokenUsage(22, 1));
        accounting.recordRequest("w", 30, null);

        // then
        assertThat(accounting.reportsByStrategy()).containsOnlyKeys("buffer", "window");
        assertThat(accounting.reportsByStrategy().get("window").requests()).isEqualTo(2);
        assertThat(accounting.reportsByStrategy().get("window").estimatedPromptTokens()).isEqualTo(50);
        assertThat(accounting.reportsByStrategy().get("buffer").reportedPromptTokens()).isEqualTo(12);
    }
}
