package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Reply;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A window's {@code maxTokens} bounds the whole request {@code AiServices} sends, although
 * {@code AiServices} adds the new question after it reads the window: every request of a conversation
 * of varied questions and answers is at most 200 tokens (counted as the window counts, on the
 * messages the model received), except the requests that carry one turn that alone is bigger than the
 * limit: its own, and the first model call of the next request (the newest turn is always sent whole). Exact with {@link RequestScope#aiServiceListeners()}
 * (the window counts the question itself); without them the window leaves room for a question as
 * long as the longest of the last three plus a quarter, which holds here as the questions vary less
 * than that.
 */
class WindowTokenLimitTest {

    private static final int LIMIT = 200;
    private static final String OVERSIZE = "Please read this carefully: " + "the tea list is long and varied; ".repeat(40);

    private OpenAiTestServer server;
    private final List<List<ChatMessage>> sent = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void startServer() throws Exception {
        server = new OpenAiTestServer();
        SplittableRandom random = new SplittableRandom(7);
        server.answerWith(request -> Reply.text("Answer: " + "green tea is fine ".repeat(1 + random.nextInt(8))));
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    @Test
    void should_send_at_most_max_tokens_per_request_but_the_over_size_turn_when_the_listeners_are_registered() {
        // given: questions from 3 to 60 words
        SplittableRandom random = new SplittableRandom(42);
        List<String> questions = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            questions.add("Question " + i + ": " + "which tea ".repeat(1 + random.nextInt(30)));
        }
        questions.add(20, OVERSIZE);

        // when
        converse(questions, true);

        // then
        assertWithinLimitButTheOversizeTurn();
    }

    @Test
    void should_send_at_most_max_tokens_per_request_but_the_over_size_turn_when_questions_vary_little_without_listeners() {
        // given: questions of 20 to 24 words
        SplittableRandom random = new SplittableRandom(42);
        List<String> questions = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            questions.add("Question " + i + ": " + "which tea ".repeat(10 + random.nextInt(3)));
        }
        questions.add(20, OVERSIZE);

        // when
        converse(questions, false);

        // then
        assertWithinLimitButTheOversizeTurn();
    }

    interface Assistant {
        @dev.langchain4j.service.SystemMessage("You are a tea shop assistant.")
        String chat(@dev.langchain4j.service.MemoryId String session, @dev.langchain4j.service.UserMessage String text);
    }

    private void converse(List<String> questions, boolean listeners) {
        ChatModelListener recorder = new ChatModelListener() {
            @Override
            public void onRequest(ChatModelRequestContext context) {
                sent.add(List.copyOf(context.chatRequest().messages()));
            }
        };
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.baseUrl()).apiKey("test-key")
                .modelName("gpt-4o-mini").maxRetries(0).listeners(List.of(recorder)).build();
        AiServices<Assistant> builder = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(WindowChatMemory.builder().maxTokens(LIMIT).listener(MemoryListener.NONE).provider());
        if (listeners) {
            builder.registerListeners(RequestScope.aiServiceListeners());
        }
        Assistant assistant = builder.build();
        for (String question : questions) {
            assistant.chat("tokens-1", question);
        }
    }

    private void assertWithinLimitButTheOversizeTurn() {
        assertThat(sent).hasSizeGreaterThan(40);
        assertThat(sent.stream().filter(r -> r.contains(UserMessage.from(OVERSIZE)))).as("requests with the over-size turn")
                .hasSize(2);
        for (List<ChatMessage> request : sent) {
            int tokens = Tokenizers.o200k().estimateTokenCountInMessages(request);
            if (request.contains(UserMessage.from(OVERSIZE))) {
                continue; // the over-size turn is the newest in its own request and the next: shown whole
            }
            assertThat(tokens).as("tokens of %s", request).isLessThanOrEqualTo(LIMIT);
        }
    }
}
