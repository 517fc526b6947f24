package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.BUDGET;
import static io.github.memorypack.recall.Chats.BUDGET_ANSWER;
import static io.github.memorypack.recall.Chats.BUDGET_QUESTION;
import static io.github.memorypack.recall.Chats.OTHER_QUESTION;
import static io.github.memorypack.recall.Chats.SISTER;
import static io.github.memorypack.recall.Chats.SISTER_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER_QUESTION;
import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.Retention;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.window.WindowChatMemory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RecallContentRetrieverTest {

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-03-14T10:02:00Z"));
    private final SessionStore store = InMemorySessionStore.create(clock);
    private final RecallContentRetriever recall = RecallContentRetriever.builder().store(store).hybrid().build();

    @AfterEach
    void close() {
        recall.close();
    }

    private WindowChatMemory window(String id) {
        return WindowChatMemory.builder().id(id).chatMemoryStore(store).maxMessages(6).build();
    }

    /** A fact in the first turn, then {@code fillers} everyday turns a day later. */
    private WindowChatMemory conversation(String id, String fact, String answer, int fillers) {
        WindowChatMemory memory = window(id);
        turn(memory, fact, answer);
        clock.advance(Duration.ofDays(1));
        fillers(memory, 0, fillers);
        return memory;
    }

    @Test
    void should_recall_fact_far_outside_the_window_when_question_shares_only_the_entity() {
        // given
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 40);

        // when
        List<Content> recalled = recall.retrieve(query(memory, SISTER_QUESTION));

        // then: the whole turn, labelled with its date, comes first or alone
        assertThat(joined(recalled)).contains("Earlier turn (Saturday 14 March 2026, 10:02 UTC):\nUser: " + SISTER
                + "\nAssistant: " + SISTER_ANSWER);
        assertThat(recalled).allSatisfy(c -> assertThat((Double) c.metadata().get(ContentMetadata.SCORE))
                .isBetween(RecallContentRetriever.DEFAULT_MIN_SCORE, 1.0));
    }

    @Test
    void should_recall_fact_by_meaning_when_question_shares_no_word() {
        WindowChatMemory memory = conversation("ana", BUDGET, BUDGET_ANSWER, 40);

        List<Content> recalled = recall.retrieve(query(memory, BUDGET_QUESTION));

        assertThat(joined(recalled)).contains(BUDGET);
    }

    @Test
    void should_recall_nothing_planted_when_question_is_about_other_things() {
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 40);
        turn(memory, BUDGET, BUDGET_ANSWER);
        fillers(memory, 40, 60);

        List<Content> recalled = recall.retrieve(query(memory, OTHER_QUESTION));

        assertThat(joined(recalled)).doesNotContain("Ingrid", "1,400");
    }

    @Test
    void should_not_return_turns_the_view_already_shows() {
        // given: the fact is in the window's last turns
        WindowChatMemory memory = conversation("ana", BUDGET, BUDGET_ANSWER, 30);
        turn(memory, SISTER, SISTER_ANSWER);
        assertThat(memory.messages()).contains(UserMessage.from(SISTER));

        // when
        List<Content> recalled = recall.retrieve(query(memory, SISTER_QUESTION));

        // then
        assertThat(joined(recalled)).doesNotContain("Ingrid");
        // and without a view in the query, it may be returned
        Query noView = Query.from(SISTER_QUESTION, Metadata.builder().chatMessage(UserMessage.from(SISTER_QUESTION))
                .invocationContext(InvocationContext.builder().chatMemoryId("ana").build()).build());
        assertThat(joined(recall.retrieve(noView))).contains("Ingrid");
    }

    @Test
    void should_return_nothing_when_query_has_no_memory_id() {
        conversation("ana", SISTER, SISTER_ANSWER, 10);

        assertThat(recall.retrieve(Query.from(SISTER_QUESTION))).isEmpty();
    }

    @Test
    void should_keep_sessions_apart_when_both_have_facts_about_the_same_thing() {
        // given
        WindowChatMemory ana = conversation("ana", SISTER, SISTER_ANSWER, 30);
        WindowChatMemory bob = conversation("bob", "My sister Ingrid lives in Bergen with her two dogs.", "Lovely!", 30);
        WindowChatMemory eve = conversation("eve", BUDGET, BUDGET_ANSWER, 30);

        // when
        String forAna = joined(recall.retrieve(query(ana, SISTER_QUESTION)));
        String forBob = joined(recall.retrieve(query(bob, SISTER_QUESTION)));
        String forEve = joined(recall.retrieve(query(eve, SISTER_QUESTION)));

        // then
        assertThat(forAna).contains("Tromsø").doesNotContain("Bergen");
        assertThat(forBob).contains("Bergen").doesNotContain("Tromsø");
        assertThat(forEve).doesNotContain("Ingrid");
    }

    @Test
    void should_stay_within_the_token_budget_and_return_oldest_first() {
        // given: many turns about one thing
        RecallContentRetriever small = RecallContentRetriever.builder().store(store).hybrid().maxTokens(120).build();
        WindowChatMemory memory = window("ana");
        for (int i = 0; i < 12; i++) {
            turn(memory, "Note " + i + " about the garden: the tomatoes in bed " + i + " need more water.",
                    "Noted for bed " + i + ".");
            clock.advance(Duration.ofHours(1));
        }
        fillers(memory, 0, 10);

        // when
        List<Content> recalled = small.retrieve(query(memory, "Which garden beds need more water for the tomatoes?"));
        small.close();

        // then
        int tokens = 0;
        for (Content content : recalled) {
            tokens += Tokenizers.o200k().estimateTokenCountInText(content.textSegment().text());
        }
        assertThat(recalled).hasSizeGreaterThan(1);
        assertThat(tokens).isLessThanOrEqualTo(120);
        List<String> dates = recalled.stream().map(c -> c.textSegment().metadata().getString("timestamp")).toList();
        assertThat(dates).isSorted();
    }

    @Test
    void should_cut_a_single_best_turn_to_the_budget_when_it_alone_is_larger() {
        RecallContentRetriever tiny = RecallContentRetriever.builder().store(store).hybrid().maxTokens(20).build();
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER + " " + "Tromsø is lovely. ".repeat(30), 20);

        List<Content> recalled = tiny.retrieve(query(memory, SISTER_QUESTION));
        tiny.close();

        assertThat(recalled).hasSize(1);
        assertThat(recalled.get(0).textSegment().text()).endsWith(" […]");
        assertThat(Tokenizers.o200k().estimateTokenCountInText(recalled.get(0).textSegment().text())).isLessThanOrEqualTo(20);
    }

    @Test
    void should_recall_nothing_for_a_question_whose_only_word_is_a_name_said_in_most_lines() {
        // given: a long chat whose speakers address each other by name in most lines, and one fact
        RecallContentRetriever lexical = RecallContentRetriever.builder().store(store).lexicalOnly().build();
        WindowChatMemory memory = WindowChatMemory.builder().id("omar").chatMemoryStore(store).maxMessages(6).build();
        turn(memory, "Omar, my pottery class starts on Monday.", "Fun, Daniel! Send photos.");
        for (int i = 0; i < 60; i++) {
            String[] filler = ((UserMessage) Chats.filler(i).get(0)).singleText().split(" ", 2);
            turn(memory, "Omar, " + filler[0].toLowerCase(java.util.Locale.ROOT) + " " + filler[1],
                    i % 3 == 0 ? Chats.fillerAnswer(i) : "Daniel, " + Chats.fillerAnswer(i));
        }

        // when: a question that shares only the speaker's name with the chit-chat, and one about the fact
        List<Content> name = lexical.retrieve(query(memory, "How is Omar?"));
        String pottery = joined(lexical.retrieve(query(memory, "Omar, when does the ceramics thing, the pottery, begin?")));
        lexical.close();

        // then: the name alone weighs nothing (it does not fill the budget with chit-chat); the fact is found
        assertThat(name).isEmpty();
        assertThat(pottery).contains("pottery class starts on Monday").doesNotContain("basil");
    }

    @Test
    void should_recall_nothing_when_a_question_about_something_never_said_shares_only_common_words() {
        // given: a long chat where "names" comes up now and then (in 8 of 124 messages) and one fact names Ingrid
        RecallContentRetriever lexical = RecallContentRetriever.builder().store(store).lexicalOnly().build();
        WindowChatMemory memory = WindowChatMemory.builder().id("omar").chatMemoryStore(store).maxMessages(6).build();
        turn(memory, "Omar, my sister Ingrid moved up to Tromsø for the new job.", "Daniel, that is a big move!");
        for (int i = 0; i < 61; i++) {
            String[] filler = ((UserMessage) Chats.filler(i).get(0)).singleText().split(" ", 2);
            String user = i % 8 == 0 ? "Omar, I can never remember people's names at parties, they slip away."
                    : "Omar, " + filler[0].toLowerCase(java.util.Locale.ROOT) + " " + filler[1];
            turn(memory, user, i % 3 == 0 ? Chats.fillerAnswer(i) : "Daniel, " + Chats.fillerAnswer(i));
        }

        // when: a question about a dentist never mentioned, which shares only "name" with the chat, and one
        // that shares only the rare name Ingrid with the fact, both with words the chat never used
        List<Content> dentist = lexical.retrieve(query(memory, "What is the name of Omar's dentist?"));
        String town = joined(lexical.retrieve(query(memory, "Which town is Ingrid based in these days?")));
        lexical.close();

        // then: common words alone do not make a question about something never said relevant; a rare one does
        assertThat(dentist).isEmpty();
        assertThat(town).contains("Ingrid moved up to Tromsø");
    }

    @Test
    void should_recall_only_above_min_score() {
        // given: a question that shares one of its three words with the fact (coverage about a half)
        RecallContentRetriever lexical = RecallContentRetriever.builder().store(store).lexicalOnly().build();
        RecallContentRetriever strict = RecallContentRetriever.builder().store(store).lexicalOnly().minScore(0.9).build();
        WindowChatMemory memory = conversation("ana", BUDGET, BUDGET_ANSWER, 20);
        String question = "What budget did I give for the phone?";

        // then
        assertThat(joined(lexical.retrieve(query(memory, question)))).contains(BUDGET);
        assertThat(strict.retrieve(query(memory, question))).isEmpty();
        lexical.close();
        strict.close();
    }

    @Test
    void should_find_entity_lexically_when_lexical_only() {
        RecallContentRetriever lexical = RecallContentRetriever.builder().store(store).lexicalOnly().build();
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 40);

        assertThat(joined(lexical.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        assertThat(joined(lexical.retrieve(query(memory, OTHER_QUESTION)))).doesNotContain("Tromsø");
        lexical.close();
    }

    @Test
    void should_forget_everything_when_memory_is_cleared() {
        // given
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 30);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");

        // when: cleared, then a new conversation of the same length
        memory.clear();
        conversation("ana", BUDGET, BUDGET_ANSWER, 30);

        // then
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).doesNotContain("Tromsø");
        assertThat(joined(recall.retrieve(query(memory, BUDGET_QUESTION)))).contains(BUDGET);
    }

    @Test
    void should_forget_what_set_replaced_when_memory_is_set() {
        // given: the fact is in the window's newest turn
        WindowChatMemory memory = conversation("ana", BUDGET, BUDGET_ANSWER, 5);
        turn(memory, SISTER, SISTER_ANSWER);
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        assertThat(view).endsWith(UserMessage.from(SISTER), AiMessage.from(SISTER_ANSWER));

        // when: the turn is replaced through set(), and the conversation goes on past the window
        view.set(view.size() - 2, UserMessage.from("My sister lives abroad."));
        view.set(view.size() - 1, AiMessage.from("Noted."));
        memory.set(view);
        fillers(memory, 5, 30);

        // then: the replaced turn is never recalled; what set() kept and what came before still are
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).doesNotContain("Tromsø");
        assertThat(joined(recall.retrieve(query(memory, "Where does my sister live?")))).contains("abroad");
        assertThat(joined(recall.retrieve(query(memory, BUDGET_QUESTION)))).contains(BUDGET);
    }

    @Test
    void should_recall_only_the_latest_attempt_when_a_request_was_retried() throws Exception {
        // given: attempt 1 asks, attempt 2 (a retry) asks and is answered, then attempt 1 answers late
        WindowChatMemory memory = window("ana");
        CountDownLatch asked = new CountDownLatch(1);
        CountDownLatch retried = new CountDownLatch(1);
        Thread first = new Thread(() -> RequestScope.run("req-1", () -> {
            memory.add(UserMessage.from(SISTER));
            asked.countDown();
            await(retried);
            memory.add(AiMessage.from("Ingrid lives in Bergen, as far as I know."));
        }));
        first.start();
        await(asked);
        RequestScope.run("req-1", () -> turn(memory, SISTER, SISTER_ANSWER));
        retried.countDown();
        first.join();
        fillers(memory, 0, 30);

        // when
        String recalled = joined(recall.retrieve(query(memory, SISTER_QUESTION)));

        // then: the retry's turn, once, and nothing of the first attempt
        assertThat(recalled).contains(SISTER_ANSWER).doesNotContain("Bergen");
        assertThat(recalled.split("Ingrid moved", -1)).hasSize(2);
    }

    @Test
    void should_keep_interleaved_turns_apart_when_two_requests_ran_at_once() throws Exception {
        // given: two threads of one session, each asking before the other is answered (side by side:
        // under the default ConcurrentSends.queue() the second would wait for the first's answer)
        WindowChatMemory memory = WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(6)
                .concurrentSends(io.github.memorypack.core.ConcurrentSends.branch()).build();
        CountDownLatch sisterAsked = new CountDownLatch(1);
        CountDownLatch budgetAsked = new CountDownLatch(1);
        CountDownLatch sisterAnswered = new CountDownLatch(1);
        Thread sister = new Thread(() -> {
            memory.add(UserMessage.from(SISTER));
            sisterAsked.countDown();
            await(budgetAsked);
            memory.add(AiMessage.from(SISTER_ANSWER));
            sisterAnswered.countDown();
        });
        Thread budget = new Thread(() -> {
            await(sisterAsked);
            memory.add(UserMessage.from(BUDGET));
            budgetAsked.countDown();
            await(sisterAnswered);
            memory.add(AiMessage.from(BUDGET_ANSWER));
        });
        sister.start();
        budget.start();
        sister.join();
        budget.join();
        fillers(memory, 0, 30);

        // when
        String recalled = joined(recall.retrieve(query(memory, SISTER_QUESTION)));

        // then: the sister turn holds its own answer, not the budget one
        assertThat(recalled).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER);
        assertThat(recalled).doesNotContain("User: " + SISTER + "\nAssistant: " + BUDGET_ANSWER);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void should_not_recall_turns_retention_trimmed() {
        // given: a window whose retention keeps the last 20 entries
        WindowChatMemory memory = WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(6)
                .retention(Retention.keepLast(20)).build();
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 3);
        memory.messages();
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");

        // when: the conversation goes on and the log is trimmed
        for (int i = 3; i < 40; i++) {
            fillers(memory, i, i + 1);
            memory.messages();
        }

        // then
        assertThat(store.read("ana", 0, 1).get(0).index()).isGreaterThan(1);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).doesNotContain("Tromsø");
        assertThat(recall.indexedMessages("ana")).isLessThanOrEqualTo((int) (store.nextIndex("ana")
                - store.read("ana", 0, 1).get(0).index()));
    }

    @Test
    void should_rebuild_when_log_was_deleted_and_written_again_to_the_same_length() {
        // given: an index caught up with a log
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 20);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        long length = store.nextIndex("ana");

        // when: the log is deleted behind the memory's back and refilled to exactly the same length
        store.delete("ana");
        store.append("ana", List.of(NewEntry.of(UserMessage.from(BUDGET)), NewEntry.of(AiMessage.from(BUDGET_ANSWER))));
        fillers(memory, 100, 100 + (int) (length - 2) / 2);
        assertThat(store.nextIndex("ana")).isEqualTo(length);

        // then
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).doesNotContain("Tromsø");
        assertThat(joined(recall.retrieve(query(memory, BUDGET_QUESTION)))).contains(BUDGET);
    }

    @Test
    void should_not_index_recalled_block_stored_with_a_user_message() {
        // given: AiServices with storeRetrievedContentInChatMemory(true) stores the augmented message
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 30);
        memory.add(UserMessage.from(OTHER_QUESTION + Turns.RECALL_MARKER + ": quoted]\nEarlier turn: Ingrid Tromsø"));
        memory.add(AiMessage.from("Here is a recipe."));
        fillers(memory, 30, 40);

        // when
        List<Content> recalled = recall.retrieve(query(memory, SISTER_QUESTION));

        // then: only the original turn
        assertThat(recalled).hasSize(1);
        assertThat(recalled.get(0).textSegment().text()).contains(SISTER);
    }

    @Test
    void should_recall_the_same_words_once_when_said_again_with_a_stored_recall_block() {
        // given: the fact said twice, the second time stored augmented with a recall block
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 10);
        turn(memory, SISTER + Turns.RECALL_MARKER + ": quoted]\nEarlier turn: a walk in the park", SISTER_ANSWER);
        fillers(memory, 10, 30);

        // when
        List<Content> recalled = recall.retrieve(query(memory, SISTER_QUESTION));

        // then: one copy of the words
        assertThat(recalled).hasSize(1);
        assertThat(recalled.get(0).textSegment().text()).contains(SISTER);
    }

    @Test
    void should_index_appended_messages_when_updated_without_a_query() {
        WindowChatMemory memory = conversation("ana", SISTER, SISTER_ANSWER, 10);

        recall.update("ana");
        int before = recall.indexedMessages("ana");
        fillers(memory, 10, 12);
        recall.update("ana");

        assertThat(before).isEqualTo(22);
        assertThat(recall.indexedMessages("ana")).isEqualTo(26);
    }

    @Test
    void should_reject_bad_options() {
        assertThatThrownBy(() -> RecallContentRetriever.builder().maxTokens(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecallContentRetriever.builder().minScore(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecallContentRetriever.builder().minScore(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecallContentRetriever.builder().store(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecallContentRetriever.builder().tokenizer(null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecallContentRetriever.builder().build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RecallContentRetriever.builder().store(store).lexicalOnly()
                .embeddingModel(DefaultModel.get()).build())
                .isInstanceOf(IllegalStateException.class);
    }
}
