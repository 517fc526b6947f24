package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * A Spring Boot 4 web application as the starter README builds its service (its own {@code ChatModel} and
 * {@code StreamingChatModel} beans, {@code AiServices} with the auto-configured provider and
 * {@code RequestScope.aiServiceListeners()}), with a tool, a blocking endpoint and a streaming one
 * (server-sent events from a {@code TokenStream}), served by a real Tomcat and asked over HTTP: streamed
 * and blocking requests of one conversation interleaved, and a failed stream followed by the next request.
 */
class WebStreamingTest {

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);

        TokenStream stream(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** The application's tool. */
    static class Weather {
        @Tool("the weather in a city")
        String weather(@P("the city") String city) {
            return "sunny in " + city;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ChatController.class)
    static class StreamingApplication {

        @Bean
        ChatModel chatModel(@Value("${openai.base-url}") String baseUrl) {
            return OpenAiChatModel.builder().baseUrl(baseUrl).apiKey("test-key").modelName("gpt-4o-mini").build();
        }

        @Bean
        StreamingChatModel streamingChatModel(@Value("${openai.base-url}") String baseUrl) {
            return OpenAiStreamingChatModel.builder().baseUrl(baseUrl).apiKey("test-key").modelName("gpt-4o-mini")
                    .build();
        }

        @Bean
        Assistant assistant(ChatModel chatModel, StreamingChatModel streamingChatModel,
                            ChatMemoryProvider chatMemoryProvider) {
            return AiServices.builder(Assistant.class)
                    .chatModel(chatModel)
                    .streamingChatModel(streamingChatModel)
                    .chatMemoryProvider(chatMemoryProvider)
                    .tools(new Weather())
                    .registerListeners(RequestScope.aiServiceListeners())
                    .build();
        }
    }

    @RestController
    static class ChatController {

        private final Assistant assistant;

        ChatController(Assistant assistant) {
            this.assistant = assistant;
        }

        @GetMapping("/chat")
        String chat(@RequestParam String user, @RequestParam String q) {
            return assistant.chat(user, q);
        }

        @GetMapping("/stream")
        SseEmitter stream(@RequestParam String user, @RequestParam String q) {
            SseEmitter emitter = new SseEmitter(60_000L);
            assistant.stream(user, q)
                    .onPartialResponse(part -> {
                        try {
                            emitter.send(part);
                        } catch (IOException e) {
                            emitter.completeWithError(e);
                        }
                    })
                    .onCompleteResponse(response -> emitter.complete())
                    .onError(emitter::completeWithError)
                    .start();
            return emitter;
        }
    }

    private static OpenAiTestServer openAi;

    @TempDir
    Path folder;

    @BeforeAll
    static void startModel() throws IOException {
        WebApps.letOtherTomcatsStart();
        openAi = new OpenAiTestServer();
        // "FAIL…" answers HTTP 500, "SLOW…" takes a while, "TOOL <city>" calls the tool; answers name their question
        openAi.answerWith(request -> {
            List<String> history = request.history();
            String last = request.lastLine();
            String question = "";
            for (String line : history) {
                if (line.startsWith("user: ")) {
                    question = line.substring("user: ".length());
                }
            }
            if (last.startsWith("tool ")) {
                return OpenAiTestServer.Reply.text("answer to " + question + " with "
                        + last.substring(last.indexOf(": ") + 2));
            }
            if (question.startsWith("FAIL")) {
                throw new IllegalStateException("the model is down");
            }
            if (question.contains("SLOW")) {
                sleep(400);
            }
            if (question.startsWith("TOOL ")) {
                String city = question.substring("TOOL ".length());
                return OpenAiTestServer.Reply.toolCalls(ToolExecutionRequest.builder().id("call-" + request.number())
                        .name("weather").arguments("{\"city\":\"" + city + "\"}").build());
            }
            return OpenAiTestServer.Reply.text("answer to " + question);
        });
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @AfterAll
    static void stopModel() throws IOException {
        openAi.close();
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(StreamingApplication.class).run(
                "--server.port=0", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
                "--openai.base-url=" + openAi.baseUrl(),
                "--memory-pack.store.type=file", "--memory-pack.store.file.directory=" + folder,
                "--memory-pack.strategy=window", "--memory-pack.window.max-messages=60");
    }

    /** The text a server-sent-events body carries (its data lines, joined). */
    private static String streamed(String body) {
        StringBuilder text = new StringBuilder();
        for (String line : body.split("\n")) {
            if (line.startsWith("data:")) {
                text.append(line.substring("data:".length()));
            }
        }
        return text.toString();
    }

    @Test
    void should_keep_each_answer_after_its_own_question_when_streamed_and_blocking_requests_interleave()
            throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(6);
        try (ConfigurableApplicationContext app = start()) {
            // when: three streamed and three blocking requests of one conversation at once, two with the tool
            List<String> paths = List.of("/stream", "/chat", "/stream", "/chat", "/stream", "/chat");
            List<String> questions = List.of("SLOW one", "SLOW two", "TOOL Oslo", "TOOL Lima", "SLOW five", "six");
            List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                String path = paths.get(i);
                String question = questions.get(i);
                sent.add(CompletableFuture.supplyAsync(() -> WebApps.get(app, path, "erin", question), clients));
            }

            // then: each response is the answer to its own question
            for (int i = 0; i < paths.size(); i++) {
                HttpResponse<String> response = sent.get(i).get();
                assertThat(response.statusCode()).as("%s %s: %s", paths.get(i), questions.get(i), response.body())
                        .isEqualTo(200);
                String answer = paths.get(i).equals("/stream") ? streamed(response.body()) : response.body();
                String expected = questions.get(i).startsWith("TOOL ")
                        ? "answer to " + questions.get(i) + " with sunny in " + questions.get(i).substring(5)
                        : "answer to " + questions.get(i);
                assertThat(answer).as("%s %s", paths.get(i), questions.get(i)).isEqualTo(expected);
            }
            // the log holds every question once, each followed by its own turn's messages
            List<String> lines = WebApps.conversation(app, "erin");
            List<String> asked = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).startsWith("user: ")) {
                    continue;
                }
                String question = lines.get(i).substring("user: ".length());
                asked.add(question);
                if (question.startsWith("TOOL ")) {
                    String city = question.substring(5);
                    assertThat(lines.subList(i + 1, i + 4)).as("turn of %s in %s", question, lines).containsExactly(
                            "ai: calls {\"city\":\"" + city + "\"}", "tool: sunny in " + city,
                            "ai: answer to " + question + " with sunny in " + city);
                } else {
                    assertThat(lines.get(i + 1)).as("turn of %s in %s", question, lines)
                            .isEqualTo("ai: answer to " + question);
                }
            }
            assertThat(asked).containsExactlyInAnyOrderElementsOf(questions);
            assertThat(lines).hasSize(6 * 2 + 2 * 2);
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void should_answer_the_next_request_at_once_when_a_streamed_request_of_the_conversation_failed() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            // given: a conversation whose streamed request failed (the model answered HTTP 500)
            assertThat(WebApps.get(app, "/chat", "finn", "Hi, I'm Finn.").statusCode()).isEqualTo(200);
            WebApps.get(app, "/stream", "finn", "FAIL please");

            // when: its next request comes, streamed and then blocking
            long start = System.nanoTime();
            HttpResponse<String> streamedNext = WebApps.get(app, "/stream", "finn", "Still there?");
            HttpResponse<String> blockingNext = WebApps.get(app, "/chat", "finn", "And now?");
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            // then: both are answered at once
            assertThat(streamed(streamedNext.body())).isEqualTo("answer to Still there?");
            assertThat(blockingNext.body()).isEqualTo("answer to And now?");
            assertThat(took).isLessThan(Duration.ofSeconds(5));
            assertThat(WebApps.conversation(app, "finn")).endsWith("user: Still there?", "ai: answer to Still there?",
                    "user: And now?", "ai: answer to And now?");
        }
    }
}
