package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Real applications without the optional parts: {@link MinimalApplication} started by
 * {@code SpringApplication} in a class loader of this module's test class path less some entries
 * (not a {@code FilteredClassLoader}, which hides classes but not their bytes, and so fails where a
 * real application without the jar does not).
 */
@ExtendWith(OutputCaptureExtension.class)
class ClassPathTest {

    @ParameterizedTest(name = "without {0}: {2}")
    @CsvSource(delimiter = '|', value = {
            // left out                                    | property                         | what happens
            "ACTUATOR                                       | memory-pack.strategy=window      | starts",
            "micrometer                                     | memory-pack.strategy=window      | starts",
            // Actuator's MeterRegistry, but no memorypack.* meters: the log says what to add
            "/micrometer/target/,memory-pack-micrometer      | memory-pack.strategy=window      | starts, logs: add io.github.memorypack:memory-pack-micrometer",
            "/redis/target/,memory-pack-redis,jedis          | memory-pack.store.type=redis     | fails: io.github.memorypack:memory-pack-redis",
            "/jdbc/target/,memory-pack-jdbc                  | memory-pack.store.type=jdbc      | fails: io.github.memorypack:memory-pack-jdbc"})
    void should_start_or_say_which_artifact_is_missing_when_an_optional_jar_is_absent(String leftOut, String property,
                                                                                       String outcome, CapturedOutput output)
            throws Exception {
        // ACTUATOR: the jars of the generation's Actuator (Spring Boot 4 has its health API in a jar of its own)
        List<String> excluded = Arrays.stream(leftOut.split(",")).map(String::trim)
                .flatMap(j -> j.equals("ACTUATOR") ? BootGeneration.ACTUATOR_JARS.stream() : java.util.stream.Stream.of(j))
                .toList();
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (excluded.stream().noneMatch(entry::contains) && !entry.contains("surefire")) {
                urls.add(url(entry));
            }
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(loader);
            assertThat(loader.getResource("org/springframework/boot/SpringApplication.class")).isNotNull();
            Class<?> application = loader.loadClass(MinimalApplication.class.getName());
            Object context;
            try {
                context = loader.loadClass("org.springframework.boot.SpringApplication")
                        .getMethod("run", Class.class, String[].class)
                        .invoke(null, application, new String[] {"--spring.main.web-application-type=none",
                                "--spring.main.banner-mode=off", "--" + property.trim()});
            } catch (java.lang.reflect.InvocationTargetException e) {
                assertThat(outcome.trim()).as("start-up failure %s", e.getCause()).startsWith("fails:");
                String artifact = outcome.trim().substring("fails:".length()).trim();
                assertThat(rootCause(e).getMessage()).contains(artifact);
                // the start-up report says which dependency to add, not a stack trace
                String text = output.getAll();
                assertThat(text).contains("APPLICATION FAILED TO START");
                assertThat(text.substring(text.lastIndexOf("APPLICATION FAILED TO START")))
                        .contains("Property: memory-pack.store.type", "Reason: needs " + artifact,
                                "Add the dependency " + artifact);
                return;
            }
            try (AutoCloseable closing = (AutoCloseable) context) {
                assertThat(outcome.trim()).startsWith("starts");
                if (outcome.contains("logs:")) {
                    assertThat(output.getAll()).contains(outcome.substring(outcome.indexOf("logs:") + 5).trim());
                }
                Object provider = context.getClass().getMethod("getBean", Class.class)
                        .invoke(context, loader.loadClass("dev.langchain4j.memory.chat.ChatMemoryProvider"));
                assertThat(provider).isNotNull();
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static URL url(String entry) {
        try {
            return new File(entry).toURI().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(entry, e);
        }
    }
}
