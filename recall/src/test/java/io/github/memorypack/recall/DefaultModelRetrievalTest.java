package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The default model (recall's quiet ONNX session) must retrieve exactly what LangChain4j's own
 * {@code AllMiniLmL6V2QuantizedEmbeddingModel} retrieves, passed as {@code embeddingModel(…)}.
 */
class DefaultModelRetrievalTest {

    private static final String[][] FACTS = {
            {"By the way, my sister Ingrid moved to Tromsø last spring.", "That is a big move!"},
            {"My budget for the new computer is 1,400 euros, tops.", "Understood."},
            {"I'm allergic to peanuts, so keep them out of any recipe.", "I will avoid peanuts."},
            {"Our daughter Mia starts school on 2 September.", "Exciting times!"},
            {"I switched from coffee to green tea last month.", "Good for you."},
            {"The car is a 2014 Volvo V70, diesel, with 210,000 km on it.", "A sturdy car."},
            {"My manager's name is Dagfinn and he prefers email over calls.", "Email it is."},
            {"We're planning a trip to Kyoto in April for the cherry blossoms.", "Lovely season for it."},
            {"Actually my budget went up: I can spend 1,800 euros now.", "Noted, 1,800 then."},
            {"I run 5 km every Tuesday and Thursday morning.", "A good routine."},
    };

    private static final List<String> QUESTIONS = List.of(
            "Which town is Ingrid based in these days?",
            "How much am I willing to spend on the laptop?",
            "Is there any food I can't eat?",
            "When does my kid begin at school?",
            "What do I drink in the morning now?",
            "What kind of car do I drive?",
            "How should I contact my boss?",
            "Where are we going on holiday?",
            "How often do I go jogging?",
            "Can you recommend a good pasta recipe for tonight?");

    @Test
    void should_retrieve_what_langchain4js_own_model_retrieves_on_a_realistic_conversation() {
        // given: facts spread over 70 everyday turns
        SessionStore store = InMemorySessionStore.create();
        WindowChatMemory memory = Chats.window(store);
        for (int i = 0; i < FACTS.length; i++) {
            turn(memory, FACTS[i][0], FACTS[i][1]);
            Chats.fillers(memory, i * 6, i * 6 + 6);
        }
        RecallContentRetriever quiet = RecallContentRetriever.builder().store(store).hybrid().build();
        RecallContentRetriever theirs = RecallContentRetriever.builder().store(store)
                .embeddingModel(new AllMiniLmL6V2QuantizedEmbeddingModel()).build();

        int recalled = 0;
        for (String question : QUESTIONS) {
            // when
            List<Content> ours = quiet.retrieve(query(memory, question));
            List<Content> reference = theirs.retrieve(query(memory, question));

            // then: the same turns, in the same order, with the same scores
            assertThat(Chats.texts(ours)).as(question).isEqualTo(Chats.texts(reference));
            for (int i = 0; i < ours.size(); i++) {
                assertThat((Double) ours.get(i).metadata().get(ContentMetadata.SCORE)).as(question)
                        .isCloseTo((Double) reference.get(i).metadata().get(ContentMetadata.SCORE),
                                org.assertj.core.data.Offset.offset(1e-4));
            }
            recalled += ours.size();
        }
        // and both recalled something for most questions (a check that the comparison compares something)
        assertThat(recalled).isGreaterThan(QUESTIONS.size() / 2);
        quiet.close();
        theirs.close();
    }
}
