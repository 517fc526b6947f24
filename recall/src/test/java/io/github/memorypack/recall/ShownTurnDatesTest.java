package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.rag.content.Content;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.window.WindowChatMemory;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A temporal question about a turn the view still shows: the view has no dates, so recall adds a short
 * dated reference to that turn (not the turn again); other questions never get one.
 */
class ShownTurnDatesTest {

    private static final String KYOTO = "I finally made it to Kyoto yesterday, the temples were stunning and the food even better.";

    private final MutableClock clock = MutableClock.at(Instant.parse("2023-04-20T09:00:00Z"));
    private final SessionStore store = InMemorySessionStore.create(clock);
    private final RecallContentRetriever recall = RecallContentRetriever.builder().store(store).build();

    @AfterEach
    void close() {
        recall.close();
    }

    /** Filler, then the Kyoto turn on 7 May 2023 and one more turn: both in the window's view (3 turns). */
    private WindowChatMemory chat() {
        WindowChatMemory memory = Chats.window(store);
        fillers(memory, 0, 20);
        clock.set(Instant.parse("2023-05-07T13:56:00Z"));
        turn(memory, KYOTO, "Lucky you, what a trip!");
        clock.set(Instant.parse("2023-05-07T14:01:00Z"));
        fillers(memory, 20, 21);
        return memory;
    }

    @Test
    void should_add_a_dated_reference_to_the_shown_turn_a_temporal_question_is_about() {
        // given
        WindowChatMemory memory = chat();

        // when
        String recalled = joined(recall.retrieve(query(memory, "When did I visit Kyoto?")));

        // then: its date and what "yesterday" meant then, and only the first words of the matched message
        assertThat(recalled).isEqualTo("Turn shown above (Sunday 7 May 2023, 13:56 UTC; \"yesterday\" = Saturday 6 May 2023):"
                + " User: I finally made it to Kyoto yesterday, the temples were…");
    }

    @Test
    void should_add_nothing_for_a_shown_turn_when_the_question_is_not_temporal() {
        // given
        WindowChatMemory memory = chat();

        // when
        List<Content> recalled = recall.retrieve(query(memory, "What did I think of the temples in Kyoto?"));

        // then
        assertThat(recalled).isEmpty();
    }

    @Test
    void should_add_nothing_when_a_temporal_question_is_about_nothing_said() {
        // given
        WindowChatMemory memory = chat();

        // when
        List<Content> recalled = recall.retrieve(query(memory, "When did I adopt the puppy?"));

        // then
        assertThat(recalled).isEmpty();
    }

    @Test
    void should_add_the_shown_reference_after_a_recalled_older_turn() {
        // given: Kyoto was planned long before, out of the view
        WindowChatMemory memory = Chats.window(store);
        turn(memory, "We are planning a trip to Kyoto for the spring.", "Sounds wonderful.");
        fillers(memory, 0, 20);
        clock.set(Instant.parse("2023-05-07T13:56:00Z"));
        turn(memory, KYOTO, "Lucky you, what a trip!");

        // when
        List<String> recalled = Chats.texts(recall.retrieve(query(memory, "When did I visit Kyoto?")));

        // then: the older turn in full, then the reference to the one shown
        assertThat(recalled).hasSize(2);
        assertThat(recalled.get(0)).startsWith("Earlier turn (Thursday 20 April 2023, 09:00 UTC):\nUser: We are planning a trip to Kyoto");
        assertThat(recalled.get(1)).startsWith("Turn shown above (Sunday 7 May 2023, 13:56 UTC;");
    }

    @Test
    void should_count_the_reference_against_the_budget() {
        // given
        RecallContentRetriever small = RecallContentRetriever.builder().store(store).maxTokens(10).build();
        WindowChatMemory memory = chat();

        // when
        List<Content> recalled = small.retrieve(query(memory, "When did I visit Kyoto?"));
        small.close();

        // then: the reference (about 35 tokens) does not fit in 10
        assertThat(recalled).isEmpty();
    }

    @Test
    void should_quote_the_sentence_that_matched_when_the_message_starts_with_something_else() {
        // given
        WindowChatMemory memory = Chats.window(store);
        fillers(memory, 0, 20);
        clock.set(Instant.parse("2023-05-07T13:56:00Z"));
        turn(memory, "Hey, how are you doing? Work has been hectic all week. Anyway, we finally made it to Kyoto last weekend.",
                "Lucky you!");

        // when
        String recalled = joined(recall.retrieve(query(memory, "When was the Kyoto trip?")));

        // then
        assertThat(recalled).endsWith("): User: …Anyway, we finally made it to Kyoto last weekend.")
                .contains("\"last weekend\" = the weekend before 7 May 2023 (6 May 2023–7 May 2023)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"When did Omar visit Kyoto?", "when's the party?", "What year did you move?",
        "Which month was the wedding?", "How long ago was her birthday?", "How long has Sam had the dog?",
        "What did we do in May 2023?", "What happened last week?"})
    void should_take_these_questions_as_temporal(String question) {
        assertThat(Dates.temporal(question, Dates.period(question, Instant.parse("2023-06-01T00:00:00Z")))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"What do you do when it rains?", "Which town is Ingrid based in these days?",
        "How long is the drive to Oslo?", "What pet does Omar have?"})
    void should_not_take_these_questions_as_temporal(String question) {
        assertThat(Dates.temporal(question, Dates.period(question, Instant.parse("2023-06-01T00:00:00Z")))).isFalse();
    }
}
