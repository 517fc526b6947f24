package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A question that names the kind of thing where the turn said the thing itself ("game" for "basketball",
 * "hurt" or "injure" for "sprained") finds the turn lexically, through {@link Paraphrases}, though the two
 * share no word.
 */
class ParaphrasedQuestionTest {

    static final String SPRAIN = "Last weekend I sprained my ankle during basketball.";

    private final SessionStore store = InMemorySessionStore.create();
    private final RecallContentRetriever recall = RecallContentRetriever.builder().store(store).build();

    @AfterEach
    void close() {
        recall.close();
    }

    private WindowChatMemory chat() {
        WindowChatMemory memory = Chats.window(store);
        turn(memory, SPRAIN, "Ouch, keep it raised.");
        fillers(memory, 0, 15);
        turn(memory, "Adam, my brother, finally settled in Dublin.", "Good for him!");
        fillers(memory, 15, 30);
        return memory;
    }

    private static void assertSharesNoTerm(String question, String said) throws IOException {
        RecallAnalyzer analyzer = new RecallAnalyzer();
        assertThat(analyzer.terms(question)).doesNotContainAnyElementsOf(analyzer.terms(said));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "Which game did I hurt myself in? | basketball", // basketball is a game, to sprain is to hurt
            "How did I injure myself?         | sprained my ankle" // to sprain is to injure
    })
    void should_find_the_turn_that_said_the_thing_a_question_names_by_its_kind(String question, String expected)
            throws IOException {
        // given
        WindowChatMemory memory = chat();
        assertSharesNoTerm(question, SPRAIN);

        // when
        String recalled = joined(recall.retrieve(query(memory, question)));

        // then
        assertThat(recalled).contains(expected);
    }

    @Test
    void should_recall_nothing_when_the_question_has_no_word_or_kind_the_session_said() {
        // given
        WindowChatMemory memory = chat();

        // when: no instrument, no lessons were mentioned
        String recalled = joined(recall.retrieve(query(memory, "What musical instrument am I learning?")));

        // then
        assertThat(recalled).isEmpty();
    }

    @Test
    void should_give_the_synonyms_and_narrower_words_of_a_term() {
        assertThat(Paraphrases.of("sport")).contains("basketball", "rugby", "soccer").doesNotContain("sport");
        assertThat(Paraphrases.of("city")).contains("dublin", "berlin");
        assertThat(Paraphrases.of("relax")).contains("unwind");
        // the same thing as another part of speech
        assertThat(Paraphrases.of("injury")).contains("injure", "wound");
        assertThat(Paraphrases.of("wedding")).contains("marry");
        assertThat(Paraphrases.of("qwzxv")).isEmpty();
    }
}
