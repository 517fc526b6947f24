package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A question about two things said in different turns gets both, though one turn covers more of it than the other. */
class QuestionAspectsTest {

    private final SessionStore store = InMemorySessionStore.create();
    private final RecallContentRetriever recall = RecallContentRetriever.builder().store(store).build();

    @AfterEach
    void close() {
        recall.close();
    }

    private WindowChatMemory chat() {
        WindowChatMemory memory = Chats.window(store);
        turn(memory, "I finished my first half marathon on Sunday! My legs are jelly.", "Congratulations, what a feat!");
        fillers(memory, 0, 12);
        turn(memory, "I twisted my knee during soccer, so I'm on the couch for a while.", "Ouch, rest well.");
        fillers(memory, 16, 34); // not filler 15, whose answer says "knee-to-chest"
        return memory;
    }

    @Test
    void should_recall_the_turn_of_each_part_when_a_question_asks_about_two_things() {
        // given
        WindowChatMemory memory = chat();

        // when: the marathon turn covers most of the question's weight, the knee turn a fifth of it
        String recalled = joined(recall.retrieve(query(memory, "Which came first: the half marathon or the injury to my knee?")));

        // then
        assertThat(recalled).contains("half marathon", "twisted my knee");
    }

    @Test
    void should_score_the_turn_of_the_smaller_part_by_its_coverage() {
        // given
        WindowChatMemory memory = chat();

        // when
        List<Content> recalled = recall.retrieve(query(memory, "Which came first: the half marathon or the injury to my knee?"));

        // then: both turns have a score in (0, 1]
        assertThat(recalled).hasSize(2).allSatisfy(content -> assertThat((Double) content.metadata().get(ContentMetadata.SCORE))
                .isGreaterThan(0.0).isLessThanOrEqualTo(1.0));
    }

    @Test
    void should_not_add_a_turn_for_the_rest_when_it_shares_only_common_words() {
        // given
        WindowChatMemory memory = chat();

        // when: what the marathon turn leaves uncovered ("tips", "sleeping") is said only in everyday filler
        String recalled = joined(recall.retrieve(query(memory, "Any tips for sleeping better after the half marathon?")));

        // then
        assertThat(recalled).contains("half marathon").doesNotContain("knee");
    }
}
