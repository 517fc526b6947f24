package io.github.memorypack.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The default model's single-threaded session against LangChain4j's own class for the same model:
 * the index key says "all-minilm-l6-v2-q", so both must give the very same vectors.
 */
class SingleThreadedMiniLmTest {

    private static final List<String> TEXTS = List.of(
            "My sister Ingrid moved to Tromsø last spring.",
            "Which town is Ingrid based in these days?",
            "In tea I take honey.",
            "The deploy failed at 03:14 because the disk on build-7 was full; we rotated the logs and retried.",
            "x",
            "Can you recommend a good pasta recipe? Something with anchovies, garlic, chilli and breadcrumbs, "
                    + "for four people, that takes under half an hour, because on weekdays I never have more time "
                    + "than that and the children get hungry early.");

    @Test
    void should_give_the_vectors_of_langchain4j_s_model_when_embedding_one_text_or_a_batch() {
        // given
        EmbeddingModel ours = RecallContentRetriever.DefaultModel.get();
        EmbeddingModel theirs = new AllMiniLmL6V2QuantizedEmbeddingModel();
        List<TextSegment> segments = new ArrayList<>();
        for (String text : TEXTS) {
            segments.add(TextSegment.from(text));
        }

        // when
        List<float[]> oneByOne = new ArrayList<>();
        List<float[]> expected = new ArrayList<>();
        for (String text : TEXTS) {
            oneByOne.add(ours.embed(text).content().vector());
            expected.add(theirs.embed(text).content().vector());
        }
        List<float[]> batch = new ArrayList<>();
        ours.embedAll(segments).content().forEach(embedding -> batch.add(embedding.vector()));

        // then
        assertThat(ours).isInstanceOf(SingleThreadedMiniLm.class);
        assertThat(ours.dimension()).isEqualTo(theirs.dimension());
        for (int i = 0; i < TEXTS.size(); i++) {
            assertThat(oneByOne.get(i)).as(TEXTS.get(i)).containsExactly(expected.get(i));
            assertThat(batch.get(i)).as(TEXTS.get(i)).containsExactly(expected.get(i));
        }
    }
}
