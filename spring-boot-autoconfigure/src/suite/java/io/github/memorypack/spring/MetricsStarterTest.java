package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.micrometer.MemoryPackMetrics;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The meters and the health indicator under Actuator's own registry, as an application has them. */
class MetricsStarterTest {

    interface Assistant {
        String chat(String message);
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(BootGeneration.metrics()).withConfiguration(Starters.memoryPack());

    @Test
    void should_count_the_failed_operation_and_report_down_when_the_store_fails_during_a_chat() {
        // given: the application's store, which fails once broken
        AtomicBoolean broken = new AtomicBoolean();
        SessionStore store = failing(InMemorySessionStore.create(), broken);
        OpenAiTestServer server = TestApplication.openAi();
        runner.withBean(SessionStore.class, () -> store).run(context -> {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(server.model())
                    .chatMemoryProvider(context.getBean(ChatMemoryProvider.class)).build();
            assistant.chat("Hi, I'm Ada.");
            assertThat(BootGeneration.health(context).status()).isEqualTo("UP");

            // when
            broken.set(true);
            assertThatThrownBy(() -> assistant.chat("Where do I live?")).isInstanceOf(StoreException.class);

            // then: the failed call is timed and counted by operation and exception, with no session id
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(MemoryPackMetrics.STORE_ERRORS).tag("exception", "StoreException").counter().count())
                    .isEqualTo(1);
            assertThat(registry.get(MemoryPackMetrics.STORE_OPERATIONS).tag("outcome", "error").timer().count())
                    .isEqualTo(1);
            assertThat(registry.getMeters()).flatExtracting(meter -> meter.getId().getTags())
                    .noneMatch(tag -> tag.getValue().contains("default"));
            StarterHealth down = BootGeneration.health(context);
            assertThat(down.status()).isEqualTo("DOWN");
            assertThat(down.details().get("error").toString()).contains("StoreException", "store down");
        });
    }

    @Test
    void should_publish_percentiles_of_view_tokens_when_spring_boot_distribution_properties_name_the_meter() {
        // the README's way (percentiles-histogram) is the same per-meter filter; the simple registry of
        // this test publishes client-side percentiles, not histogram buckets
        runner.withPropertyValues("management.metrics.distribution.percentiles.memorypack.view.tokens=0.5,0.95")
                .run(context -> {
                    context.getBean(ChatMemoryProvider.class).get("ada").messages();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get(MemoryPackMetrics.VIEW_TOKENS).summary().takeSnapshot().percentileValues())
                            .hasSize(2);
                    assertThat(registry.get(MemoryPackMetrics.VIEW_MESSAGES).summary().takeSnapshot()
                            .percentileValues()).isEmpty();
                });
    }

    /** {@code delegate}, throwing {@link StoreException} from every call while {@code broken}. */
    static SessionStore failing(SessionStore delegate, AtomicBoolean broken) {
        return (SessionStore) Proxy.newProxyInstance(MetricsStarterTest.class.getClassLoader(),
                new Class<?>[] {SessionStore.class}, (proxy, method, args) -> {
                    if (broken.get() && method.getDeclaringClass() == SessionStore.class) {
                        throw new StoreException("store down");
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
