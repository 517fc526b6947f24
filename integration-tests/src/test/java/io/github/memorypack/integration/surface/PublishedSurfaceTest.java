package io.github.memorypack.integration.surface;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The published modules' public surface (issue 10), read from their class files (see
 * {@link PublicSurface}): no public type in an internal package; no accessible type that extends,
 * implements or exposes in a public or protected signature a type of ours that is not accessible;
 * exactly the public top-level types and the {@code @Experimental} marks listed here, so that
 * growing the surface is a deliberate edit of this file. The project's budget is 40 public
 * top-level types across the published modules.
 */
class PublishedSurfaceTest {

    // 42 before issue 24, plus its strategy SPI (MemoryStrategy and MemoryOptions: a user's own strategy needs
    // both), MemoryBuilder (the id, store and shared options' setters every memory builder extends, written once
    // instead of in five builders) and core.file.DurableFiles (the disk
    // layer the file store and the MEMORY.md store share)
    private static final int BUDGET = 46;

    /** Each published module, by a class it holds, with its public top-level types. */
    private static final Map<String, Module> MODULES = new LinkedHashMap<>();

    static {
        add("core", "io.github.memorypack.core.SessionStore",
                // the store SPI, its values and its helpers for implementers
                "core.SessionStore", "core.Entry", "core.NewEntry", "core.SessionState", "core.Summary",
                "core.SessionIds", "core.EntryCodec",
                // the stores that need nothing else
                "core.InMemorySessionStore", "core.file.FileSessionStore",
                // the disk layer of the file-backed stores (memory-md's store uses it too)
                "core.file.DurableFiles",
                // extension points and what memories report
                "core.Summarizer", "core.Retention", "core.MemoryListener", "core.SummaryMessage",
                // tokens, requests (and two at once), conversation tools
                "core.Tokenizers", "core.TokenAccounting", "core.RequestScope", "core.ConcurrentSends",
                "core.Conversations",
                // the exception tree
                "core.MemoryPackException", "core.StoreException", "core.CorruptRecordException",
                "core.SummarizationException", "core.SessionBusyException",
                "core.Experimental",
                // the strategy SPI: what a strategy decides, and the shared options that make it a memory
                "core.MemoryStrategy", "core.MemoryOptions", "core.MemoryBuilder");
        // the strategies, a module each (their policies are package-private)
        add("buffer", "io.github.memorypack.buffer.BufferChatMemory", "buffer.BufferChatMemory");
        add("window", "io.github.memorypack.window.WindowChatMemory", "window.WindowChatMemory");
        add("summary", "io.github.memorypack.summary.SummaryChatMemory", "summary.SummaryChatMemory");
        add("summary-buffer", "io.github.memorypack.summarybuffer.SummaryBufferChatMemory",
                "summarybuffer.SummaryBufferChatMemory");
        add("memory-md", "io.github.memorypack.memorymd.MemoryMdSessionStore",
                "memorymd.MemoryMdChatMemory", "memorymd.MemoryMdSessionStore");
        add("redis", "io.github.memorypack.redis.RedisSessionStore",
                "redis.RedisSessionStore", "redis.RedisUnavailableException");
        add("jdbc", "io.github.memorypack.jdbc.JdbcSessionStore",
                "jdbc.JdbcSessionStore");
        add("recall", "io.github.memorypack.recall.RecallContentRetriever",
                "recall.RecallContentRetriever", "recall.RecallTool");
        add("micrometer", "io.github.memorypack.micrometer.MemoryPackMetrics",
                "micrometer.MemoryPackMetrics");
        add("spring-boot-autoconfigure", "io.github.memorypack.spring.MemoryPackAutoConfiguration",
                "spring.MemoryPackAutoConfiguration", "spring.MemoryPackProperties");
        // each Spring Boot generation's starter: its auto-configuration is package-private, nothing is public
        add("spring-boot-starter", "io.github.memorypack.spring.boot3.MemoryPackBoot3AutoConfiguration");
        add("spring-boot4-starter", "io.github.memorypack.spring.boot4.MemoryPackBoot4AutoConfiguration");
        add("testkit", "io.github.memorypack.testkit.SessionStoreContract",
                "testkit.SessionStoreContract", "testkit.MutableClock", "testkit.SampleMessages",
                "testkit.OpenAiTestServer");
    }

    /** What may still change (see {@code io.github.memorypack.core.Experimental}). */
    private static final Set<String> EXPERIMENTAL = names(
            "core.TokenAccounting", "core.RequestScope.aiServiceListeners", "core.RequestScope$ListenersFactory", "core.file.DurableFiles",
            "core.SessionStore.processId", "core.SessionStore.processEnded", "core.SessionStore$ProcessLease",
            "core.MemoryStrategy", "core.MemoryOptions", "core.MemoryBuilder",
            "recall.RecallContentRetriever", "recall.RecallTool",
            "micrometer.MemoryPackMetrics",
            "spring.MemoryPackProperties");

    @Test
    void should_expose_no_internal_package_and_no_hidden_type_when_a_module_is_published() {
        for (Map.Entry<String, Module> module : MODULES.entrySet()) {
            // when
            List<String> violations = surfaceOf(module.getValue()).violations();

            // then
            assertThat(violations).as("breaches of the public surface in %s", module.getKey()).isEmpty();
        }
    }

    @Test
    void should_have_exactly_the_listed_public_top_level_types_when_a_module_is_published() {
        int total = 0;
        for (Map.Entry<String, Module> module : MODULES.entrySet()) {
            // when
            Set<String> types = surfaceOf(module.getValue()).publicTopLevelTypes();

            // then
            assertThat(types).as("public top-level types of %s (edit this test to change the published surface)",
                    module.getKey()).containsExactlyElementsOf(module.getValue().types);
            total += types.size();
        }
        assertThat(total).as("public top-level types across the published modules").isLessThanOrEqualTo(BUDGET);
    }

    @Test
    void should_mark_exactly_the_listed_api_experimental_when_modules_are_published() {
        // when
        Set<String> marked = new TreeSet<>();
        for (Module module : MODULES.values()) {
            marked.addAll(surfaceOf(module).experimental());
        }

        // then
        assertThat(marked).containsExactlyElementsOf(EXPERIMENTAL);
    }

    @Test
    void should_report_every_breach_when_types_leak_a_hidden_type() {
        // given: fixtures that break each rule once, next to a clean one (test sources of this module)
        PublicSurface fixtures = PublicSurface.ofPackage("io.github.memorypack.integration.surface.fixture");

        // when
        List<String> violations = fixtures.violations();

        // then
        String at = "io.github.memorypack.integration.surface.fixture.";
        assertThat(violations).containsExactlyInAnyOrder(
                at + "internal.Leaked is public in an internal package",
                at + "ExtendsHidden extends " + at + "Hidden (not accessible)",
                at + "ImplementsHidden implements " + at + "HiddenContract (not accessible)",
                at + "ImplementsHidden implements " + at + "Hidden (not accessible)",
                at + "ImplementsHidden.get() exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.field exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.<init>(" + at + "Hidden) exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.hidden() exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.hiddenList() exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.hiddenArray() exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.take(" + at + "Hidden) exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.bounded(" + at + "Hidden) exposes " + at + "Hidden (not accessible)",
                at + "ExposesHidden.fails() exposes " + at + "HiddenException (not accessible)",
                at + "ExposesHidden$Nested.leak() exposes " + at + "Hidden (not accessible)");
        assertThat(fixtures.publicTopLevelTypes()).contains(at + "Clean").doesNotContain(at + "Hidden");
        assertThat(fixtures.accessibleNestedTypes()).containsExactlyInAnyOrder(
                at + "Clean$Builder", at + "ExposesHidden$Nested");
    }

    /** Each module's classes, read once for all tests. */
    private static final Map<Module, PublicSurface> READ = new ConcurrentHashMap<>();

    private static PublicSurface surfaceOf(Module module) {
        return READ.computeIfAbsent(module, m -> PublicSurface.ofModuleHolding(m.anchor));
    }

    private static void add(String module, String anchor, String... types) {
        MODULES.put(module, new Module(anchor, names(types)));
    }

    private static Set<String> names(String... shortNames) {
        Set<String> names = new TreeSet<>();
        for (String name : shortNames) {
            names.add(PublicSurface.ROOT + name);
        }
        return names;
    }

    private record Module(String anchor, Set<String> types) {
    }
}
