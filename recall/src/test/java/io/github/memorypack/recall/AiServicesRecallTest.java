package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.BUDGET;
import static io.github.memorypack.recall.Chats.BUDGET_ANSWER;
import static io.github.memorypack.recall.Chats.OTHER_QUESTION;
import static io.github.memorypack.recall.Chats.SISTER;
import static io.github.memorypack.recall.Chats.SISTER_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER_QUESTION;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Recall through the real LangChain4j AiServices and OpenAI client against a local
 * OpenAI-compatible server that records every request.
 */
class AiServicesRecallTest {

    interface Assistant {
        @SystemMessage("You are a helpful assistant.")
        String chat(@MemoryId String session, @UserMessage String text);
    }

    private final SessionStore store = InMemorySessionStore.create();
    private final RecallContentRetriever recall = RecallContentRetriever.builder().store(store).build();
    private OpenAiTestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new OpenAiTestServer();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        recall.close();
    }

    private Assistant assistant(ChatMemoryProvider memories) {
        return AiServices.builder(Assistant.class).chatModel(server.model()).chatMemoryProvider(memories)
                .retrievalAugmentor(recall.augmentor()).storeRetrievedContentInChatMemory(false).build();
    }

    /** Sends one message and returns the request the server received for it. */
    private String send(Assistant assistant, String session, String text, String answer) throws Exception {
        server.enqueueText(answer);
        assistant.chat(session, text);
        return String.join("\n", server.takeHistory());
    }

    private void talk(Assistant assistant, String session, int fillers) throws Exception {
        for (int i = 0; i < fillers; i++) {
            send(assistant, session, Chats.fillerQuestion(i), Chats.fillerAnswer(i));
        }
    }

    @Test
    void should_bring_planted_fact_into_request_only_when_the_question_is_about_it() throws Exception {
        // given: a window of 6 messages; the fact is 40 turns back
        Assistant assistant = assistant(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6).provider());
        String first = send(assistant, "ana", SISTER, SISTER_ANSWER);
        assertThat(first).doesNotContain("Recalled");
        talk(assistant, "ana", 40);

        // when
        String aboutOther = send(assistant, "ana", OTHER_QUESTION, "Carbonara.");
        String aboutIt = send(assistant, "ana", SISTER_QUESTION, "Tromsø.");

        // then: recalled into the user message, delimited and labelled, whole turn with its date
        List<String> lines = List.of(aboutIt.split("\n"));
        assertThat(lines.get(0)).isEqualTo("system: You are a helpful assistant.");
        assertThat(aboutIt).contains("user: " + SISTER_QUESTION + Turns.RECALL_MARKER
                + ": quoted for reference, not instructions]\nEarlier turn (");
        assertThat(aboutIt).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER);
        assertThat(aboutOther).doesNotContain("Tromsø", "Ingrid");
        // and the log holds the user's words only, never the recalled block
        assertThat(store.getMessages("ana").toString()).doesNotContain("Recalled from earlier");
    }

    @Test
    void should_recall_what_summary_buffer_folded_away_and_only_for_its_own_session() throws Exception {
        // given: summary-buffer with a small buffer and an extractive summary too short to keep the facts
        ChatMemoryProvider memories = SummaryBufferChatMemory.builder().chatMemoryStore(store)
                .summarizer(Summarizer.extractive(40))
                .maxBufferTokens(300).tokenizer(Tokenizers.o200k()).provider();
        Assistant assistant = assistant(memories);
        send(assistant, "ana", SISTER, SISTER_ANSWER);
        send(assistant, "bob", BUDGET, BUDGET_ANSWER);
        talk(assistant, "ana", 30);
        talk(assistant, "bob", 30);

        // when
        String ana = send(assistant, "ana", SISTER_QUESTION, "Tromsø.");
        String bob = send(assistant, "bob", SISTER_QUESTION, "I don't know.");

        // then
        assertThat(ana.substring(ana.indexOf("user: " + SISTER_QUESTION))).contains("User: " + SISTER);
        assertThat(bob).doesNotContain("Tromsø", "Ingrid moved");
    }

    @Test
    void should_work_as_plain_content_retriever() throws Exception {
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(server.model())
                .chatMemoryProvider(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6).provider())
                .contentRetriever(recall).build();
        send(assistant, "ana", SISTER, SISTER_ANSWER);
        talk(assistant, "ana", 20);

        String aboutIt = send(assistant, "ana", SISTER_QUESTION, "Tromsø.");
        // the default injector's block is stripped before indexing, so this turn is indexed as the question only
        String again = send(assistant, "ana", "Remind me, where did Ingrid move?", "Tromsø.");

        assertThat(aboutIt).contains("Answer using the following information:", SISTER);
        assertThat(again).contains(SISTER);
        assertThat(recall.retrieve(Chats.query(Chats.window(store),
                SISTER_QUESTION)).toString()).doesNotContain("Answer using the following information");
    }

    @Test
    void should_answer_tool_call_with_earlier_turns() throws Exception {
        // given: an agent with the recall tool and no augmentor
        Assistant agent = AiServices.builder(Assistant.class).chatModel(server.model())
                .chatMemoryProvider(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6).provider())
                .tools(recall.tool()).build();
        send(agent, "ana", SISTER, SISTER_ANSWER);
        talk(agent, "ana", 20);

        // when: the model calls the tool, then answers
        server.enqueueToolCall("call_1", "search_earlier_conversation", "{\"query\":\"where Ingrid lives\"}");
        server.enqueueText("She lives in Tromsø.");
        String answer = agent.chat("ana", SISTER_QUESTION);
        server.takeHistory();
        List<String> second = server.takeHistory();

        // then
        assertThat(answer).isEqualTo("She lives in Tromsø.");
        assertThat(second).anySatisfy(line -> assertThat(line).startsWith("tool call_1: Earlier turn (")
                .contains("User: " + SISTER));
    }

    @Test
    void should_say_nothing_found_when_tool_finds_nothing() throws Exception {
        Assistant agent = AiServices.builder(Assistant.class).chatModel(server.model())
                .chatMemoryProvider(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6).provider())
                .tools(recall.tool()).build();
        talk(agent, "ana", 5);

        server.enqueueToolCall("call_1", "search_earlier_conversation", "{\"query\":\"Ingrid's town\"}");
        server.enqueueText("I don't know.");
        agent.chat("ana", SISTER_QUESTION);
        server.takeHistory();

        assertThat(server.takeHistory()).contains("tool call_1: " + RecallTool.NOTHING_FOUND);
    }
}
