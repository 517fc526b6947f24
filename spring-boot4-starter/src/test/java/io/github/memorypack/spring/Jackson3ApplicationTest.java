package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Spring Boot 4 application whose JSON is Jackson 3 (Boot 4's default: {@code spring-boot-starter-jackson}
 * and a {@code tools.jackson} {@link JsonMapper} bean, no Jackson 2 {@code ObjectMapper} bean), set to
 * snake-case names and indented output — what would corrupt the stored format if Memory Pack wrote with
 * the application's mapper. A conversation with a tool call through {@code AiServices} goes through the
 * file, Redis and JDBC stores, the application is restarted on the same store, and the reopened session
 * is the same, entry for entry; the application's mapper keeps its own settings.
 */
class Jackson3ApplicationTest {

    interface Assistant {
        @dev.langchain4j.service.SystemMessage("You are a travel assistant.")
        String chat(@MemoryId String traveller, @dev.langchain4j.service.UserMessage String message);
    }

    /** A tool, so that the conversation holds tool requests and results, the richest stored messages. */
    static final class Budget {
        @Tool("Daily budget for a trip")
        String dailyBudget(@P("total euros") int euros, @P("days") int days) {
            return (euros / days) + " euros a day";
        }
    }

    /** A value of the application's, written by its own mapper. */
    record Quote(int dailyBudget) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Jackson3Application {

        @Bean
        ChatModel chatModel() {
            return server.model();
        }

        @Bean
        Assistant assistant(ChatModel chatModel, ChatMemoryProvider chatMemoryProvider) {
            return AiServices.builder(Assistant.class).chatModel(chatModel).chatMemoryProvider(chatMemoryProvider)
                    .tools(new Budget()).build();
        }
    }

    private static OpenAiTestServer server;
    private static TestRedisServer redis;

    @BeforeAll
    static void start() throws IOException {
        server = new OpenAiTestServer();
        server.answerWith(request -> OpenAiTestServer.Reply.text("Noted (" + request.lastLine() + ")."));
        redis = TestRedisServer.start();
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        redis.close();
    }

    @ParameterizedTest(name = "{0} store")
    @ValueSource(strings = {"file", "redis", "jdbc"})
    void should_round_trip_and_reopen_a_conversation_identically_when_the_application_json_is_jackson_3(String type)
            throws IOException {
        // given: the application's JSON stack is Jackson 3, with settings of its own
        List<String> properties = new ArrayList<>(List.of("spring.main.banner-mode=off",
                "spring.jackson.property-naming-strategy=SNAKE_CASE", "spring.jackson.serialization.indent-output=true",
                "memory-pack.strategy=buffer", "memory-pack.store.type=" + type));
        String database = "jackson3-" + UUID.randomUUID();
        switch (type) {
            case "file" -> properties.add("memory-pack.store.file.directory="
                    + Files.createTempDirectory("jackson3-file-store"));
            case "redis" -> properties.addAll(List.of("spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.port()));
            default -> properties.add("spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
        }
        String traveller = "ana-" + UUID.randomUUID();
        List<Entry> stored;

        // when: a conversation with a tool call, in one run of the application
        try (ConfigurableApplicationContext app = start(properties)) {
            assertThat(app.getBeanNamesForType(JsonMapper.class)).hasSize(1);
            assertThat(app.getBeanNamesForType(com.fasterxml.jackson.databind.ObjectMapper.class))
                    .as("Spring Boot 4 defines no Jackson 2 mapper bean; Memory Pack needs none").isEmpty();
            server.enqueueToolCall("call-1", "dailyBudget", "{\"euros\":1200,\"days\":3}");
            server.enqueueText("That is 400 euros a day.");
            Assistant assistant = app.getBean(Assistant.class);
            assertThat(assistant.chat(traveller, "I have 1200 euros for 3 days. Daily budget?"))
                    .isEqualTo("That is 400 euros a day.");
            assistant.chat(traveller, "I live in Lyon — «Zoë», 東京 and 🚄 too.");
            stored = entries(app, traveller);

            // then: every message as LangChain4j gave it, and the application's mapper as it configured it
            assertThat(stored).extracting(Entry::message).hasExactlyElementsOfTypes(SystemMessage.class,
                    UserMessage.class, AiMessage.class, ToolExecutionResultMessage.class, AiMessage.class,
                    UserMessage.class, AiMessage.class);
            assertThat(((AiMessage) stored.get(2).message()).toolExecutionRequests()).singleElement()
                    .satisfies(call -> assertThat(call.arguments()).isEqualTo("{\"euros\":1200,\"days\":3}"));
            assertThat(((ToolExecutionResultMessage) stored.get(3).message()).text()).isEqualTo("400 euros a day");
            assertThat(((UserMessage) stored.get(5).message()).singleText())
                    .isEqualTo("I live in Lyon — «Zoë», 東京 and 🚄 too.");
            assertThat(app.getBean(JsonMapper.class).writeValueAsString(new Quote(400)))
                    .isEqualTo("{\n  \"daily_budget\" : 400\n}");
        }

        // then: the restarted application reads the same entries, and the model gets the whole history
        try (ConfigurableApplicationContext app = start(properties)) {
            assertThat(entries(app, traveller)).isEqualTo(stored);
            app.getBean(Assistant.class).chat(traveller, "Where do I live?");
            assertThat(server.requests().get(server.requests().size() - 1).history())
                    .contains("user: I live in Lyon — «Zoë», 東京 and 🚄 too.");
        }
    }

    private static ConfigurableApplicationContext start(List<String> properties) {
        return new SpringApplicationBuilder(Jackson3Application.class).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new)).run();
    }

    private static List<Entry> entries(ConfigurableApplicationContext app, String traveller) {
        return app.getBean(SessionStore.class).read(SessionIds.of(traveller), 0, Integer.MAX_VALUE);
    }
}
