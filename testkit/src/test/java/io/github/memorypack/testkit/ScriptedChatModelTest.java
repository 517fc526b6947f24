package io.github.memorypack.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import io.github.memorypack.core.InMemorySessionStore;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScriptedChatModelTest {

    @Test
    void should_reply_in_order_and_record_requests_when_script_is_followed() {
        // given
        ScriptedChatModel model = ScriptedChatModel.builder()
                .reply("first")
                .reply("second", new TokenUsage(10, 2))
                .reply(AiMessage.builder().text("third").thinking("hmm").build(), null)
                .build();

        // when
        String first = model.chat("a");
        ChatResponse second = model.chat(UserMessage.from("b"));
        ChatResponse third = model.chat(List.of(SystemMessage.from("s"), UserMessage.from("c")));

        // then
        assertThat(first).isEqualTo("first");
        assertThat(second.aiMessage().text()).isEqualTo("second");
        assertThat(second.tokenUsage()).isEqualTo(new TokenUsage(10, 2));
        assertThat(second.finishReason()).isEqualTo(FinishReason.STOP);
        assertThat(third.aiMessage().thinking()).isEqualTo("hmm");
        assertThat(model.requests()).extracting(ChatRequest::messages)
                .containsExactly(List.of(UserMessage.from("a")), List.of(UserMessage.from("b")),
                        List.of(SystemMessage.from("s"), UserMessage.from("c")));
        assertThat(model.lastRequest()).isSameAs(model.request(2));
        assertThat(model.remainingReplies()).isZero();
    }

    @Test
    void should_fail_clearly_when_script_runs_out() {
        // given
        ScriptedChatModel model = ScriptedChatModel.replying("only");
        model.chat("one");

        // when / then
        assertThatThrownBy(() -> model.chat("two, unexpected"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("request #2")
                .hasMessageContaining("1 replies")
                .hasMessageContaining("two, unexpected");
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void should_compute_every_reply_from_request_when_answering() {
        // given
        ScriptedChatModel echo = ScriptedChatModel.answering(request -> ChatResponse.builder()
                .aiMessage(AiMessage.from("echo: " + ((UserMessage) request.messages().get(0)).singleText()))
                .build());

        // when / then
        for (int i = 0; i < 5; i++) {
            assertThat(echo.chat("m" + i)).isEqualTo("echo: m" + i);
        }
        assertThat(echo.remainingReplies()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void should_refuse_to_build_when_script_is_empty() {
        assertThatThrownBy(() -> ScriptedChatModel.builder().build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ScriptedChatModel.builder().replyWithToolCalls())
                .isInstanceOf(IllegalArgumentException.class);
    }

    interface Assistant {
        String chat(@MemoryId String session, @dev.langchain4j.service.UserMessage String message);
    }

    static final class Weather {
        @Tool("current weather in a city")
        String weather(@P("city") String city) {
            return "sunny in " + city;
        }
    }

    @Test
    void should_drive_ai_services_tool_loop_when_tool_call_is_scripted() {
        // given: a real AiServices with a tool and LangChain4j's own window memory on our store
        ScriptedChatModel model = ScriptedChatModel.builder()
                .replyWithToolCall("weather", "{\"city\":\"Paris\"}")
                .reply("It is sunny in Paris.", new TokenUsage(50, 7))
                .build();
        CountingSessionStore store = CountingSessionStore.of(InMemorySessionStore.create());
        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(model)
                .tools(new Weather())
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder()
                        .id(id).maxMessages(20).chatMemoryStore(store).build())
                .build();

        // when
        String answer = assistant.chat("s1", "Weather in Paris?");

        // then
        assertThat(answer).isEqualTo("It is sunny in Paris.");
        assertThat(model.requests()).hasSize(2);
        assertThat(model.request(0).toolSpecifications()).extracting(t -> t.name()).containsExactly("weather");
        List<ChatMessage> second = model.request(1).messages();
        assertThat(second).hasSize(3);
        assertThat(second.get(1)).isInstanceOf(AiMessage.class);
        assertThat(((AiMessage) second.get(1)).toolExecutionRequests().get(0).id()).isEqualTo("call_1");
        assertThat(second.get(2)).isInstanceOfSatisfying(ToolExecutionResultMessage.class, result -> {
            assertThat(result.id()).isEqualTo("call_1");
            assertThat(result.toolName()).isEqualTo("weather");
            assertThat(result.text()).isEqualTo("sunny in Paris");
        });
        assertThat(store.getMessages("s1")).hasSize(4);
        assertThat(store.count(CountingSessionStore.Operation.UPDATE_MESSAGES)).isPositive();
        assertThat(store.delegate().nextIndex("s1")).as("appended, never replaced").isEqualTo(4);
    }
}
