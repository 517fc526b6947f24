package io.github.memorypack.spring;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The application of the {@code @SpringBootTest}s: nothing but auto-configuration and the
 * application's chat model, an OpenAI client on the JVM's shared {@link OpenAiTestServer}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class TestApplication {

    private static OpenAiTestServer server;

    /** The local OpenAI-compatible server: answers every request with a line naming what it was sent last. */
    static synchronized OpenAiTestServer openAi() {
        if (server == null) {
            try {
                server = new OpenAiTestServer();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.answerWith(request -> OpenAiTestServer.Reply.text("Noted (" + request.lastLine() + ")."));
            OpenAiTestServer started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (IOException ignored) {
                    // the JVM is going away
                }
            }));
        }
        return server;
    }

    @Bean
    ChatModel chatModel(@Value("${test.openai.base-url}") String baseUrl) {
        return OpenAiChatModel.builder().baseUrl(baseUrl).apiKey("test-key").modelName("gpt-4o-mini").maxRetries(0)
                .build();
    }
}
