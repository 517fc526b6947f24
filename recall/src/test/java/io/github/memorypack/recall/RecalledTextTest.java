package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.window.WindowChatMemory;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What of a recalled turn is shown: the messages that matched the question, and their neighbours that give them meaning. */
class RecalledTextTest {

    private final SessionStore store = InMemorySessionStore.create(MutableClock.at(Instant.parse("2026-03-14T10:02:00Z")));
    private final RecallContentRetriever recall = RecallContentRetriever.builder().store(store).build();

    @AfterEach
    void close() {
        recall.close();
    }

    private WindowChatMemory chat(String user, String answer) {
        WindowChatMemory memory = Chats.window(store);
        turn(memory, user, answer);
        fillers(memory, 0, 30);
        return memory;
    }

    @Test
    void should_recall_the_answer_to_a_photo_sent_without_words_with_the_turn_it_belongs_to() {
        // given: the user sends a photo alone, the assistant describes it; two such turns, then everyday turns
        WindowChatMemory memory = Chats.window(store);
        memory.add(dev.langchain4j.data.message.UserMessage.from(
                dev.langchain4j.data.message.ImageContent.from("https://example.com/dog.jpg")));
        memory.add(dev.langchain4j.data.message.AiMessage.from("What a cheerful golden retriever puppy on the beach!"));
        memory.add(dev.langchain4j.data.message.UserMessage.from(
                dev.langchain4j.data.message.ImageContent.from("https://example.com/cake.jpg")));
        memory.add(dev.langchain4j.data.message.AiMessage.from("That lemon cake looks delicious."));
        fillers(memory, 0, 30);

        // when
        String dog = joined(recall.retrieve(query(memory, "Which breed was the puppy in my picture?")));
        String cake = joined(recall.retrieve(query(memory, "What flavour was the cake?")));

        // then: each answer, with the photo it answers
        assertThat(dog).contains("User: [image]\nAssistant: What a cheerful golden retriever puppy on the beach!");
        assertThat(cake).contains("User: [image]\nAssistant: That lemon cake looks delicious.");
    }

    @Test
    void should_show_a_reply_that_matches_nothing_as_an_ellipsis_when_the_matched_message_is_a_statement() {
        // given
        WindowChatMemory memory = chat("My sister Ingrid moved to Tromsø last spring.", "That is a big move! I hope she enjoys the north.");

        // when
        String recalled = joined(recall.retrieve(query(memory, "Which town is Ingrid based in these days?")));

        // then
        assertThat(recalled).contains("User: My sister Ingrid moved to Tromsø last spring.\nAssistant: " + Turns.TRIMMED)
                .doesNotContain("big move");
    }

    @Test
    void should_show_the_answer_when_the_matched_message_asks_a_question() {
        // given
        WindowChatMemory memory = chat("What should I call my new tabby kitten?", "How about Miso, Pepper or Biscuit?");

        // when
        String recalled = joined(recall.retrieve(query(memory, "Which names did you suggest for my kitten?")));

        // then
        assertThat(recalled).contains("User: What should I call my new tabby kitten?\nAssistant: How about Miso, Pepper or Biscuit?");
    }

    @Test
    void should_show_what_a_matched_reply_replies_to_when_only_the_reply_matches() {
        // given
        WindowChatMemory memory = chat("Guess who came home with me from the shelter today.", "A tabby kitten! Does Miso like her new home?");

        // when
        String recalled = joined(recall.retrieve(query(memory, "Where did Miso come from?")));

        // then
        assertThat(recalled).contains("User: Guess who came home with me from the shelter today.\nAssistant: A tabby kitten!");
    }

    @Test
    void should_show_the_dates_only_of_what_is_shown() {
        // given: the reply's "yesterday" is trimmed with it
        WindowChatMemory memory = chat("My sister Ingrid moved to Tromsø last spring.", "I read about Tromsø's winters yesterday, brr.");

        // when
        String recalled = joined(recall.retrieve(query(memory, "Which town is Ingrid based in these days?")));

        // then
        assertThat(recalled).contains("Ingrid").doesNotContain("\"yesterday\"");
    }
}
