package io.github.memorypack.samples.web;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.replay.Conversation;
import io.github.memorypack.samples.OpenAiSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A web chat that shows what each memory strategy sends: pick or name a session, chat, and beside
 * every answer see the exact messages the model received under the live strategy and the request
 * each other strategy would have sent at the same point, with token counts, the running summaries
 * and a chart of tokens per request. Plain HTML and JavaScript, no build step.
 *
 * <p>Offline by default (the comparison demo's scripted assistant and extractive summarizer); a real
 * model with {@code OPENAI_API_KEY} (and {@code OPENAI_BASE_URL}, {@code OPENAI_MODEL}). Sessions are
 * kept by the store that {@code memory-pack.store.*} configures through the Spring Boot starter (a
 * file store in {@code target/web-sessions} by default). A Spring Boot 4.1 application on
 * {@code memory-pack-spring-boot4-starter}. Start it with
 * {@code mvn -B -q -pl samples/web-chat -am compile exec:java} and open the printed address
 * ({@code -Dexec.args=--server.port=9090} for another port).
 */
@SpringBootApplication
public class WebChat {

    /** Where the page is served from. */
    static final String STATIC = "classpath:/io/github/memorypack/samples/web/static/";

    /** Starts the web chat; arguments are Spring Boot's ({@code --server.port=9090}). */
    public static void main(String[] args) {
        ConfigurableApplicationContext context = start(Map.of(), args);
        System.out.println("Memory Pack web chat: http://localhost:"
                + context.getEnvironment().getProperty("local.server.port") + "/  ("
                + context.getBean(ChatService.class).describe() + ")");
    }

    /** Starts it with {@code properties} over the defaults (tests use {@code server.port=0}). */
    static ConfigurableApplicationContext start(Map<String, Object> properties, String... args) {
        SpringApplication application = new SpringApplication(WebChat.class);
        Map<String, Object> defaults = new HashMap<>();
        defaults.put("spring.web.resources.static-locations", STATIC);
        defaults.put("spring.main.banner-mode", "off");
        defaults.put("memory-pack.store.type", "file");
        defaults.put("memory-pack.store.file.directory", System.getProperty("memorypack.web.dir", "target/web-sessions"));
        defaults.put("memory-pack.summarizer.extractive", "true");
        defaults.putAll(properties);
        application.setDefaultProperties(defaults);
        return application.run(args);
    }

    /**
     * The chat: offline unless {@code OPENAI_API_KEY} is set ({@code webchat.offline=true} keeps it
     * offline anyway), on the store the starter configured.
     */
    @Bean
    ChatService chatService(SessionStore store, @Value("${webchat.offline:false}") boolean offline) {
        Optional<OpenAiSettings> openAi = offline ? Optional.empty() : OpenAiSettings.from(System.getenv());
        TokenCountEstimator tokenizer = openAi.map(OpenAiSettings::tokenizer).orElseGet(Tokenizers::o200k);
        OfflineAssistant scripted = new OfflineAssistant(Conversation.builtIn());
        ChatModel model = openAi.<ChatModel>map(OpenAiSettings::chatModel).orElse(scripted);
        Summarizer summarizer = OpenAiSettings.summarizer(openAi, ChatService.LIMITS.summaryTokens(), tokenizer);
        String mode = openAi.map(OpenAiSettings::describe)
                .orElse("OFFLINE: scripted assistant and extractive summarizer (set OPENAI_API_KEY for a real model)");
        return new ChatService(store, model, summarizer, tokenizer, scripted, mode);
    }
}
