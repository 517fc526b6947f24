package io.github.memorypack.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo and the terminal chat print what they mean to print, and no library's warnings: each runs
 * as its own JVM with the samples' logging configuration (as {@code mvn … exec:java} runs it), with
 * recall, which loads the in-process embedding model (DJL's tokenizers warn "Failed to detect GPU
 * count" on a machine with a CUDA runtime and no usable GPU, as this project's CI machine has), and
 * every line of standard output and standard error is checked.
 */
class QuietOutputTest {

    /** A warning line of any logging framework: logback's {@code WARN}, java.util.logging's {@code WARNING}. */
    private static final Pattern WARNING = Pattern.compile("(?i)\\bwarn(ing)?\\b");

    @TempDir
    Path dir;

    @Test
    void should_print_no_warning_line_when_the_demo_runs_every_strategy_with_recall() throws Exception {
        // when: the demo's main on a shortened conversation, every strategy (the recall ones included)
        String output = run("", Comparison.class, "turns=24", "out=" + dir.resolve("comparison"));

        // then: it ran to the end, and said nothing it did not mean to
        assertThat(output).contains("window+recall", "summary-buffer+recall", "Wrote ");
        assertThat(output.lines().filter(line -> WARNING.matcher(line).find())).isEmpty();
    }

    @Test
    void should_print_no_warning_line_when_the_terminal_chat_runs_with_recall() throws Exception {
        // when
        String output = run("ana\nsummary-buffer+recall\nHi, I'm Ana.\nWhat is my name?\n/quit\n", ChatApp.class,
                "dir=" + dir.resolve("chat"));

        // then
        assertThat(output).contains("Session 'ana' with summary-buffer+recall", "You said \"What is my name?\"", "Bye.");
        assertThat(output.lines().filter(line -> WARNING.matcher(line).find())).isEmpty();
    }

    /** Runs {@code main} in a new JVM on the test class path; its standard output and error, together. */
    private static String run(String input, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.awt.headless=true", "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), main.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("finished").isTrue();
        assertThat(process.exitValue()).as("exit code; output:%n%s", output).isZero();
        return output;
    }
}
