package io.github.memorypack.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Recall over a long conversation of many sittings days apart, through the real {@code AiServices}
 * and OpenAI client against the local test server, with summary-buffer as the memory and recall's
 * defaults: what a chat app sees after weeks of use.
 */
class AiServicesSittingsTest {

    interface Friend {
        @SystemMessage("You are Sam, a friend of Maya's. Use the conversation so far.")
        String chat(@MemoryId String session, @UserMessage String text);
    }

    private static final Instant START = Instant.parse("2023-03-06T18:00:00Z");
    private static final String[] SMALL_TALK = {
        "How was your weekend, Sam? Ours was quiet, we mostly cleaned the garage.",
        "The weather has been so gloomy lately, Sam. I've given up on planning anything.",
        "Work has been non-stop meetings, honestly. Hang in there, they say.",
        "Did you watch the game last night, Sam? What a finish in the last quarter!",
        "I tried that new noodle place near the station, Sam. Worth the queue.",
        "Traffic this morning was a nightmare, Sam. Backed up for miles.",
        "Any good podcasts lately, Sam? I'm into one about old sitcoms.",
        "I finally cleaned out my closet, Sam. Feels good."};

    private final MutableClock clock = MutableClock.at(START);
    private final SessionStore store = InMemorySessionStore.create(clock);
    private final RecallContentRetriever recall = RecallContentRetriever.builder().store(store).build();
    private OpenAiTestServer server;
    private Friend friend;

    @BeforeEach
    void start() throws Exception {
        server = new OpenAiTestServer();
        friend = AiServices.builder(Friend.class).chatModel(server.model())
                .chatMemoryProvider(SummaryBufferChatMemory.builder().chatMemoryStore(store)
                        .summarizer(Summarizer.extractive(100)).maxBufferTokens(600).tokenizer(Tokenizers.o200k())
                        .provider())
                .retrievalAugmentor(recall.augmentor()).storeRetrievedContentInChatMemory(false).build();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        recall.close();
    }

    /** Sends one line at the clock's time, a minute after the previous, and returns the request it made. */
    private String say(String text) {
        server.enqueueText("Oh, nice, Maya! Tell me more.");
        friend.chat("maya", text);
        clock.advance(Duration.ofMinutes(1));
        try {
            return String.join("\n", server.takeHistory());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sitting {@code n} (1-based): a week after sitting 1 for each, small talk plus the given lines. */
    private void sitting(int n, String... lines) {
        clock.set(START.plus(Duration.ofDays(7L * (n - 1))));
        say("Hey Sam! Long time no talk. How have you been?");
        for (int i = 0; i < 3; i++) {
            say(SMALL_TALK[(n * 3 + i) % SMALL_TALK.length]);
        }
        for (String line : lines) {
            say(line);
        }
        say("Anyway, I should get going. Talk soon, Sam!");
    }

    private static String recalled(String request) {
        int at = request.indexOf(Turns.RECALL_MARKER);
        return at < 0 ? "" : request.substring(at);
    }

    /** Sitting 1, then {@code line} in sitting 2, small talk in sittings 3 to 24, and sitting 25's greeting. */
    private void saidInSitting2ThenSmallTalkUntilSitting25(String line) {
        sitting(1);
        sitting(2, line);
        for (int n = 3; n <= 24; n++) {
            sitting(n);
        }
        clock.set(START.plus(Duration.ofDays(7L * 24)));
        say("Hey Sam! Long time no talk. How have you been?");
    }

    @Test
    void should_bring_back_a_fact_from_sitting_2_in_sitting_25_when_asked_in_other_words() {
        // given: a fact said once, in passing, in sitting 2; 22 sittings of small talk after it
        saidInSitting2ThenSmallTalkUntilSitting25("Oh, by the way — yesterday my sister Ingrid finally moved up to Tromsø for the new job.");

        // when: sitting 25 asks with other words (only the name is shared)
        String request = say("Which town is Ingrid based in these days?");

        // then: the turn is recalled, labelled with its sitting's date and what "yesterday" meant then
        assertThat(recalled(request)).contains("my sister Ingrid finally moved up to Tromsø")
                .contains("Earlier turn (Monday 13 March 2023, ")
                .contains("\"yesterday\" = Sunday 12 March 2023");
    }

    @Test
    void should_bring_back_a_fact_from_sitting_2_in_sitting_25_when_the_question_shares_no_word_with_it() {
        // given: sitting 2 names the sport and the injury; the question names their kinds
        saidInSitting2ThenSmallTalkUntilSitting25("Ugh, I sprained my ankle during basketball on Saturday.");

        // when: basketball is a game, to sprain is to hurt (WordNet)
        String request = say("Which game did I hurt myself in?");

        // then
        assertThat(recalled(request)).contains("I sprained my ankle during basketball");
    }

    @Test
    void should_add_no_recalled_block_when_the_question_is_about_nothing_said() {
        // given
        sitting(1, "My sister Ingrid moved up to Tromsø for the new job.");
        for (int n = 2; n <= 10; n++) {
            sitting(n);
        }

        // when
        String request = say("Can you recommend a good lasagna recipe with spinach?");

        // then: the user message goes out as it was written (the summary may still mention Tromsø)
        assertThat(request).doesNotContain("Recalled from earlier")
                .endsWith("user: Can you recommend a good lasagna recipe with spinach?");
    }

    @Test
    void should_bring_the_turn_of_the_named_month_first_when_a_question_asks_about_a_period() {
        // given: pottery in sitting 2 (March) and sitting 10 (May), small talk around
        sitting(1);
        sitting(2, "My pottery class got cancelled again, the kiln is broken.");
        for (int n = 3; n <= 9; n++) {
            sitting(n);
        }
        sitting(10, "At pottery class the teacher loved my lopsided blue bowl!");
        for (int n = 11; n <= 16; n++) {
            sitting(n);
        }

        // when
        String request = say("What happened at pottery class in May 2023?");

        // then: May's turn is recalled, with its date
        String recalled = recalled(request);
        assertThat(recalled).contains("the teacher loved my lopsided blue bowl")
                .contains("Earlier turn (Monday 8 May 2023, ");
    }

    @Test
    void should_date_a_turn_the_view_still_shows_when_a_temporal_question_is_about_it() {
        // given: Kyoto said in the sitting the question is asked in (still in the summary-buffer's view)
        for (int n = 1; n <= 4; n++) {
            sitting(n);
        }
        sitting(5, "Guess what, Sam: yesterday we finally made it to Kyoto, the temples were stunning.");

        // when
        String request = say("When did I visit Kyoto?");

        // then: a dated reference to the shown turn, not the turn again
        assertThat(recalled(request)).contains("Turn shown above (Monday 3 April 2023, ")
                .contains("\"yesterday\" = Sunday 2 April 2023").doesNotContain("Earlier turn");
    }
}
