package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import dev.langchain4j.data.message.AiMessage;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.core.SummaryMessage;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.micrometer.MemoryPackMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** What the auto-configuration creates, and where it backs off, without servers. */
class MemoryPackAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(Starters.memoryPack());

    @Test
    void should_create_a_window_of_20_messages_on_an_in_memory_store_when_no_property_is_set() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(ChatMemoryProvider.class).hasSingleBean(SessionStore.class);
            assertThat(context.getBean(SessionStore.class)).isInstanceOf(InMemorySessionStore.class);
            ChatMemory memory = context.getBean(ChatMemoryProvider.class).get("ada");
            assertThat(memory).isInstanceOf(WindowChatMemory.class);
            for (int i = 0; i < 25; i++) {
                memory.add(UserMessage.from("message " + i));
            }
            assertThat(memory.messages()).hasSize(20);
            assertThat(context).doesNotHaveBean(MemoryPackMetrics.class);
        });
    }

    @Test
    void should_build_the_configured_strategy_when_memory_pack_strategy_is_set() {
        runner.withPropertyValues("memory-pack.strategy=buffer").run(context ->
                assertThat(context.getBean(ChatMemoryProvider.class).get("a")).isInstanceOf(BufferChatMemory.class));
        runner.withPropertyValues("memory-pack.strategy=summary", "memory-pack.summarizer.extractive=true")
                .run(context -> assertThat(context.getBean(ChatMemoryProvider.class).get("a"))
                        .isInstanceOf(SummaryChatMemory.class));
        runner.withPropertyValues("memory-pack.strategy=summary-buffer", "memory-pack.summary-buffer.max-buffer-tokens=500")
                .withBean("cheap", ChatModel.class, () -> new EchoModel())
                .run(context -> assertThat(context.getBean(ChatMemoryProvider.class).get("a"))
                        .isInstanceOf(SummaryBufferChatMemory.class));
    }

    @Test
    void should_refuse_a_second_request_before_storing_it_when_concurrent_sends_mode_is_refuse() {
        runner.withPropertyValues("memory-pack.concurrent-sends.mode=refuse").run(context -> {
            ChatMemory memory = context.getBean(ChatMemoryProvider.class).get("ana");
            memory.add(UserMessage.from("first request"));

            // another thread (another request) starts while the first one's turn runs
            java.util.concurrent.FutureTask<Void> second =
                    new java.util.concurrent.FutureTask<>(() -> memory.add(UserMessage.from("second request")), null);
            new Thread(second).start();
            assertThatThrownBy(() -> second.get(10, java.util.concurrent.TimeUnit.SECONDS)).cause()
                    .isInstanceOf(io.github.memorypack.core.SessionBusyException.class);
            assertThat(context.getBean(SessionStore.class).read("ana", 0, 10)).hasSize(1);
        });
    }

    @Test
    void should_fail_to_start_with_a_clear_message_when_a_summary_has_no_model() {
        runner.withPropertyValues("memory-pack.strategy=summary-buffer").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(MemoryPackConfigurationException.class)
                    .hasMessageContaining("memory-pack.summarizer.model")
                    .hasMessageContaining("memory-pack.summarizer.extractive=true");
        });
    }

    @Test
    void should_use_the_named_chat_model_when_summarizer_model_names_a_bean() {
        runner.withPropertyValues("memory-pack.strategy=summary", "memory-pack.summarizer.model=cheap")
                .withBean("main", ChatModel.class, () -> new EchoModel())
                .withBean("cheap", ChatModel.class, () -> new EchoModel())
                .run(context -> {
                    ChatMemory memory = context.getBean(ChatMemoryProvider.class).get("ada");
                    memory.add(UserMessage.from("I'm Ada."));
                    memory.add(dev.langchain4j.data.message.AiMessage.from("Hello Ada."));
                    memory.add(UserMessage.from("I live in Lyon."));
                    memory.add(dev.langchain4j.data.message.AiMessage.from("Nice."));
                    assertThat(((EchoModel) context.getBean("cheap")).calls).isEqualTo(1);
                    assertThat(((EchoModel) context.getBean("main")).calls).isZero();
                });
    }

    @Test
    void should_fail_to_start_when_a_file_store_has_no_directory() {
        runner.withPropertyValues("memory-pack.store.type=file").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("memory-pack.store.file.directory");
        });
    }

    @Test
    void should_back_off_when_the_application_defines_its_own_store_and_provider() {
        SessionStore own = InMemorySessionStore.create();
        ChatMemoryProvider provider = id -> MessageWindowChatMemory.withMaxMessages(5);
        runner.withBean(SessionStore.class, () -> own).withBean(ChatMemoryProvider.class, () -> provider)
                .run(context -> {
                    assertThat(context.getBean(SessionStore.class)).isSameAs(own);
                    assertThat(context.getBean(ChatMemoryProvider.class)).isSameAs(provider);
                });
    }

    @Test
    void should_attach_metrics_and_listener_beans_when_a_meter_registry_exists() {
        List<MemoryListener.ViewShown> seen = new ArrayList<>();
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(MemoryListener.class, () -> new MemoryListener() {
                    @Override
                    public void onView(ViewShown view) {
                        seen.add(view);
                    }
                })
                .run(context -> {
                    assertThat(context).hasSingleBean(MemoryPackMetrics.class);
                    context.getBean(ChatMemoryProvider.class).get("ada").messages();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get(MemoryPackMetrics.VIEW_MESSAGES).tag("strategy", "window").summary().count())
                            .isEqualTo(1);
                    assertThat(registry.get(MemoryPackMetrics.STORE_OPERATIONS).tag("backend", "in-memory").timers())
                            .isNotEmpty();
                    assertThat(seen).hasSize(1);
                });
    }

    @Test
    void should_not_bind_metrics_when_disabled_or_when_micrometer_is_absent() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withPropertyValues("memory-pack.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(MemoryPackMetrics.class));
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class, MemoryPackMetrics.class))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(ChatMemoryProvider.class));
    }

    @Test
    void should_not_create_the_health_indicator_when_it_is_disabled() {
        runner.withPropertyValues("management.health.memorypack.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("memoryPackHealthIndicator"));
        runner.run(context -> assertThat(context).hasBean("memoryPackHealthIndicator"));
    }

    @Test
    void should_describe_every_property_for_ide_completion_when_metadata_is_generated() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            String metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(metadata).contains("\"memory-pack.strategy\"", "\"memory-pack.window.max-messages\"",
                    "\"memory-pack.summary-buffer.max-buffer-tokens\"", "\"memory-pack.summarizer.model\"",
                    "\"memory-pack.store.type\"", "\"memory-pack.store.file.directory\"",
                    "\"memory-pack.store.jdbc.create-schema\"", "\"memory-pack.store.redis.key-prefix\"",
                    "\"memory-pack.view-cache-size\"", "Budget of the verbatim turns",
                    // merged from additional-spring-configuration-metadata.json
                    "spring-bean-reference", "\"management.health.memorypack.enabled\"");
        }
    }

    @Test
    void should_suggest_for_a_misspelt_name_exactly_the_properties_of_the_metadata() throws Exception {
        // given: the generated metadata's memory-pack.* names
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new ObjectMapper().readTree(in);
        }
        java.util.List<String> names = new java.util.ArrayList<>();
        metadata.get("properties").forEach(p -> names.add(p.get("name").asText()));

        // then: the failure report picks the property meant among the same names (FailureReportTest)
        assertThat(MemoryPackFailureAnalyzer.propertyNames("memory-pack", MemoryPackProperties.class))
                .containsExactlyInAnyOrderElementsOf(names.stream().filter(n -> n.startsWith("memory-pack.")).toList());
    }

    @Test
    void should_summarize_with_the_application_summarizer_bean_when_one_is_defined() {
        // given: the application's own Summarizer bean, next to its chat model
        Summarizer own = (previous, messages) -> "Own summary of " + messages.size() + " messages.";
        runner.withPropertyValues("memory-pack.strategy=summary")
                .withBean("chatModel", ChatModel.class, EchoModel::new)
                .withBean(Summarizer.class, () -> own)
                .run(context -> {
                    // when: a turn closes, so the memory folds it
                    ChatMemory memory = context.getBean(ChatMemoryProvider.class).get("ada");
                    memory.add(UserMessage.from("I'm Ada."));
                    memory.add(AiMessage.from("Hello Ada."));
                    memory.add(UserMessage.from("I live in Lyon."));
                    memory.add(AiMessage.from("Nice."));

                    // then: the bean wrote the summary, and the chat model was not asked
                    assertThat(memory.messages()).first().isInstanceOf(SummaryMessage.class)
                            .extracting(m -> ((SummaryMessage) m).summaryText()).isEqualTo("Own summary of 2 messages.");
                    assertThat(((EchoModel) context.getBean("chatModel")).calls).isZero();
                });
        // and without any ChatModel bean the start does not fail for want of a summarizer
        runner.withPropertyValues("memory-pack.strategy=summary-buffer").withBean(Summarizer.class, () -> own)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(ChatMemoryProvider.class));
        // and a Summarizer bean with summarizer properties is a conflict named at start
        runner.withPropertyValues("memory-pack.strategy=summary", "memory-pack.summarizer.extractive=true")
                .withBean(Summarizer.class, () -> own)
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOf(MemoryPackConfigurationException.class)
                        .hasMessageContaining("memory-pack.summarizer.extractive"));
    }

    @Test
    void should_use_the_primary_data_source_or_name_the_candidates_when_there_are_two() {
        ApplicationContextRunner two = runner.withPropertyValues("memory-pack.store.type=jdbc")
                .withBean("ordersDataSource", DataSource.class,
                        () -> new DriverManagerDataSource("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1"));
        // given a primary one: the store is on it
        two.withBean("chatDataSource", DataSource.class,
                        () -> new DriverManagerDataSource("jdbc:h2:mem:chat;DB_CLOSE_DELAY=-1"), bd -> bd.setPrimary(true))
                .run(context -> {
                    context.getBean(ChatMemoryProvider.class).get("ada").add(UserMessage.from("hi"));
                    try (Connection chat = DriverManager.getConnection("jdbc:h2:mem:chat");
                         ResultSet tables = chat.getMetaData().getTables(null, null, "MEMORY_PACK_%", null)) {
                        assertThat(tables.next()).isTrue();
                    }
                });
        // given none primary: the failure says so and names them (it does not ask for spring-boot-starter-jdbc)
        two.withBean("reportsDataSource", DataSource.class,
                        () -> new DriverManagerDataSource("jdbc:h2:mem:reports;DB_CLOSE_DELAY=-1"))
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("ordersDataSource").hasMessageContaining("reportsDataSource")
                        .hasMessageContaining("@Primary").hasMessageNotContaining("spring-boot-starter-jdbc"));
    }

    @Test
    void should_still_reject_a_bad_value_at_start_when_initialization_is_lazy() {
        // given: spring.main.lazy-initialization=true, as SpringApplication applies it
        ApplicationContextRunner lazy = runner.withInitializer(context ->
                context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()));

        // then: a bad value fails the start, not the first chat
        lazy.withPropertyValues("memory-pack.window.max-messages=0")
                .run(context -> assertThat(context).hasFailed());
        // and so does a misspelt name, which would otherwise leave the window at its default
        lazy.withPropertyValues("memory-pack.window.max-mesages=5")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("memory-pack.window.max-mesages"));
        // and a good configuration starts and works lazily, with its meters
        lazy.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(ChatMemoryProvider.class).get("ada").messages();
            assertThat(context.getBean(MeterRegistry.class).get(MemoryPackMetrics.VIEW_MESSAGES).summary().count())
                    .isEqualTo(1);
        });
    }

    @Test
    void should_document_in_the_readme_exactly_the_properties_of_the_metadata_with_their_defaults() throws Exception {
        // given: the generated metadata, and the README's property table (a row may name siblings: `a` / `b`)
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new ObjectMapper().readTree(in);
        }
        java.util.Map<String, JsonNode> properties = new java.util.TreeMap<>();
        metadata.get("properties").forEach(p -> properties.put(p.get("name").asText(), p));
        java.util.Map<String, String> documented = new java.util.TreeMap<>();
        for (String row : Files.readAllLines(Starters.README)) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\| (`[^|]+) \\| ([^|]+) \\|").matcher(row);
            if (m.find() && !m.group(1).contains("`property`")) {
                String first = null;
                String[] names = m.group(1).split(" / ");
                String[] defaults = m.group(2).strip().split(" / ");
                for (int n = 0; n < names.length; n++) {
                    String name = names[n].replace("`", "").strip();
                    first = first == null ? name : first.substring(0, first.lastIndexOf('.') + 1) + name;
                    documented.put(first, defaults.length == names.length ? defaults[n] : m.group(2).strip());
                }
            }
        }

        // then: the same names, each described, and every default the code has is the README's
        assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(properties.keySet());
        properties.forEach((name, property) -> {
            assertThat(property.path("description").asText()).as(name).isNotBlank();
            if (property.has("defaultValue")) {
                String readme = documented.get(name).replace("`", "");
                assertThat(readme).as("README default of %s", name)
                        .isEqualToIgnoringCase(enumeration(property) ? property.get("defaultValue").asText()
                                .replace('_', '-') : property.get("defaultValue").asText());
            }
        });
    }

    @Test
    void should_report_but_not_cut_a_buffer_over_context_tokens_and_cut_a_summary_when_context_tokens_is_set() {
        ApplicationContextRunner ceiling = runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("memory-pack.context-tokens=120", "memory-pack.summarizer.extractive=true",
                        "memory-pack.summary.fold-every-turns=100");
        // the buffer shows everything and reports the overflow
        ceiling.withPropertyValues("memory-pack.strategy=buffer").run(context -> {
            ChatMemory memory = eightTurns(context.getBean(ChatMemoryProvider.class).get("ada"));
            assertThat(memory.messages()).hasSize(16);
            assertThat(context.getBean(MeterRegistry.class).get(MemoryPackMetrics.OVERFLOWS).tag("unit", "tokens")
                    .counter().count()).isPositive();
        });
        // a summary whose folds lag (every 100 turns here) is cut to the ceiling
        ceiling.withPropertyValues("memory-pack.strategy=summary").run(context -> {
            ChatMemory memory = eightTurns(context.getBean(ChatMemoryProvider.class).get("ada"));
            assertThat(io.github.memorypack.core.Tokenizers.o200k().estimateTokenCountInMessages(memory.messages()))
                    .isLessThanOrEqualTo(120);
        });
    }

    @Test
    void should_apply_each_strategy_option_when_its_property_is_set() {
        ApplicationContextRunner metered = runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new);
        // the window's three limits
        metered.withPropertyValues("memory-pack.window.max-turns=2").run(context ->
                assertThat(eightTurns(context.getBean(ChatMemoryProvider.class).get("a")).messages()).hasSize(4)
                        .first().extracting(m -> ((UserMessage) m).singleText()).asString().startsWith("Question 6"));
        metered.withPropertyValues("memory-pack.window.max-messages=3").run(context ->
                assertThat(eightTurns(context.getBean(ChatMemoryProvider.class).get("a")).messages()).hasSize(2));
        metered.withPropertyValues("memory-pack.window.max-tokens=120").run(context -> {
            List<dev.langchain4j.data.message.ChatMessage> view =
                    eightTurns(context.getBean(ChatMemoryProvider.class).get("a")).messages();
            assertThat(io.github.memorypack.core.Tokenizers.o200k().estimateTokenCountInMessages(view))
                    .isLessThanOrEqualTo(120).isGreaterThan(60);
        });
        // summary: a fold every third turn instead of every turn
        metered.withPropertyValues("memory-pack.strategy=summary", "memory-pack.summarizer.extractive=true",
                "memory-pack.summary.fold-every-turns=3").run(context -> {
            eightTurns(context.getBean(ChatMemoryProvider.class).get("a"));
            assertThat(context.getBean(MeterRegistry.class).get(MemoryPackMetrics.FOLDS).timer().count()).isEqualTo(2);
        });
        // summary-buffer: the verbatim budget, and the summary's cap
        metered.withPropertyValues("memory-pack.strategy=summary-buffer", "memory-pack.summarizer.extractive=true",
                "memory-pack.summary-buffer.max-buffer-tokens=150", "memory-pack.summarizer.max-summary-tokens=30")
                .run(context -> {
                    List<dev.langchain4j.data.message.ChatMessage> view =
                            eightTurns(context.getBean(ChatMemoryProvider.class).get("a")).messages();
                    assertThat(view.get(0)).isInstanceOf(SummaryMessage.class);
                    assertThat(io.github.memorypack.core.Tokenizers.o200k().estimateTokenCountInText(
                            ((SummaryMessage) view.get(0)).summaryText())).isLessThanOrEqualTo(30);
                    assertThat(io.github.memorypack.core.Tokenizers.o200k().estimateTokenCountInMessages(
                            view.subList(1, view.size()))).isLessThanOrEqualTo(150);
                });
    }

    /** Whether the property's type is an enum (the README spells its values in kebab case). */
    private static boolean enumeration(JsonNode property) {
        return property.path("type").asText().contains("$");
    }

    private static ChatMemory eightTurns(ChatMemory memory) {
        for (int i = 0; i < 8; i++) {
            memory.add(UserMessage.from("Question " + i + ": my name is Ada and I live in Lyon, what about trains?"));
            memory.add(AiMessage.from("Answer " + i + ": trains from Lyon to Paris leave every hour, 40 euros."));
        }
        return memory;
    }

    /** A model that answers with a fixed summary and counts its calls. */
    static final class EchoModel implements ChatModel {
        int calls;

        @Override
        public ChatResponse doChat(ChatRequest request) {
            calls++;
            return ChatResponse.builder().aiMessage(dev.langchain4j.data.message.AiMessage.from("Ada lives in Lyon."))
                    .build();
        }
    }
}
