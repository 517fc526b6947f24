package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.spring.readme.ChatApplication;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The starter README's application ({@link ChatApplication}, as the README writes it) served by a real
 * Tomcat on a random port behind a one-method controller, asked over HTTP by a real client, with the
 * real OpenAI client against the local OpenAI-compatible server, on the file store: what each HTTP
 * request of one conversation sees when several arrive at once, when one's model call fails, and
 * after a restart over the same folder.
 */
class WebRequestsTest {

    /** The web layer a user adds to the README's application: one endpoint, the answer as the body. */
    @RestController
    static class ChatController {

        private final ChatApplication.Assistant assistant;

        ChatController(ChatApplication.Assistant assistant) {
            this.assistant = assistant;
        }

        @GetMapping("/chat")
        ResponseEntity<String> chat(@RequestParam String user, @RequestParam String q) {
            String answer = assistant.chat(user, q);
            return ResponseEntity.ok().header("X-Thread", Thread.currentThread().getName()).body(answer);
        }
    }

    private static OpenAiTestServer openAi;

    @TempDir
    Path folder;

    @BeforeAll
    static void startModel() throws IOException {
        WebApps.letOtherTomcatsStart();
        openAi = new OpenAiTestServer();
        // "FAIL…" answers HTTP 500; "SLOW…" takes a while (so requests overlap); every answer names its question
        openAi.answerWith(request -> {
            String question = request.lastLine().replaceFirst("^user: ", "");
            if (question.startsWith("FAIL")) {
                throw new IllegalStateException("the model is down");
            }
            if (question.startsWith("SLOW")) {
                try {
                    Thread.sleep(400);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return OpenAiTestServer.Reply.text("answer to " + question);
        });
    }

    @AfterAll
    static void stopModel() throws IOException {
        openAi.close();
    }

    private ConfigurableApplicationContext start(Path storeFolder) {
        return new SpringApplicationBuilder(ChatApplication.class, ChatController.class).run(
                "--server.port=0", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
                "--openai.base-url=" + openAi.baseUrl(), "--openai.api-key=test-key",
                "--memory-pack.store.type=file", "--memory-pack.store.file.directory=" + storeFolder,
                "--memory-pack.strategy=window", "--memory-pack.window.max-messages=40");
    }

    private static HttpResponse<String> ask(ConfigurableApplicationContext app, String user, String question) {
        return WebApps.get(app, "/chat", user, question);
    }

    @Test
    void should_answer_the_next_request_at_once_when_the_previous_request_of_the_conversation_failed()
            throws Exception {
        try (ConfigurableApplicationContext app = start(folder)) {
            // given: a conversation whose latest request failed (the model answered HTTP 500)
            assertThat(ask(app, "bob", "Hi, I'm Bob.").statusCode()).isEqualTo(200);
            HttpResponse<String> failed = ask(app, "bob", "FAIL please");
            assertThat(failed.statusCode()).isEqualTo(500);

            // when: the conversation's next request comes (Tomcat serves it on another worker thread)
            long start = System.nanoTime();
            HttpResponse<String> next = ask(app, "bob", "Are you there?");
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            // then: it is answered at once, not after the queue's 30 s wait (nor refused)
            assertThat(next.statusCode()).as("status, body %s", next.body()).isEqualTo(200);
            assertThat(next.body()).isEqualTo("answer to Are you there?");
            assertThat(took).isLessThan(Duration.ofSeconds(5));
            assertThat(WebApps.conversation(app, "bob")).startsWith("user: Hi, I'm Bob.", "ai: answer to Hi, I'm Bob.")
                    .endsWith("user: Are you there?", "ai: answer to Are you there?");
        }
    }

    @Test
    void should_keep_each_answer_after_its_own_question_when_requests_of_one_conversation_arrive_at_once()
            throws Exception {
        int requests = 6;
        ExecutorService clients = Executors.newFixedThreadPool(requests);
        try (ConfigurableApplicationContext app = start(folder)) {
            // when: six requests of one conversation at once, each model call slow enough to overlap the others
            List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                String question = "SLOW question " + i;
                sent.add(CompletableFuture.supplyAsync(() -> ask(app, "carol", question), clients));
            }

            // then: each is answered with the answer to its own question
            for (int i = 0; i < requests; i++) {
                HttpResponse<String> response = sent.get(i).get();
                assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(200);
                assertThat(response.body()).isEqualTo("answer to SLOW question " + i);
            }
            // the log has every question and answer once, each answer right after its question
            List<String> lines = WebApps.conversation(app, "carol");
            assertThat(lines).hasSize(2 * requests);
            for (int i = 0; i < lines.size(); i += 2) {
                assertThat(lines.get(i)).startsWith("user: SLOW question ");
                assertThat(lines.get(i + 1)).isEqualTo("ai: answer to " + lines.get(i).substring("user: ".length()));
            }
            assertThat(lines.stream().distinct()).hasSize(2 * requests);
            // and every model call ended with its own question, after whole turns only
            for (OpenAiTestServer.Request request : openAi.requests()) {
                List<String> history = request.history();
                if (!history.get(history.size() - 1).startsWith("user: SLOW question ")) {
                    continue;
                }
                for (int i = 0; i + 1 < history.size(); i += 2) {
                    assertThat(history.get(i + 1)).as("model request %d", request.number())
                            .isEqualTo("assistant: answer to " + history.get(i).substring("user: ".length()));
                }
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void should_continue_the_conversation_after_a_restart_over_the_same_folder() throws Exception {
        Path store = Files.createDirectories(folder.resolve("sessions"));
        try (ConfigurableApplicationContext app = start(store)) {
            assertThat(ask(app, "dora", "Hi, I'm Dora and I live in Oslo.").statusCode()).isEqualTo(200);
        }
        try (ConfigurableApplicationContext app = start(store)) {
            HttpResponse<String> response = ask(app, "dora", "Where do I live?");
            assertThat(response.statusCode()).isEqualTo(200);
            List<String> history = openAi.requests().get(openAi.requests().size() - 1).history();
            assertThat(history).containsExactly("user: Hi, I'm Dora and I live in Oslo.",
                    "assistant: answer to Hi, I'm Dora and I live in Oslo.", "user: Where do I live?");
        }
    }
}
