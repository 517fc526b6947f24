package io.github.memorypack.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.langchain4j.store.embedding.CosineSimilarity;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The default model is LangChain4j's quantized all-MiniLM-L6-v2 run by a quieter ONNX session: it must give
 * that model's vectors, one text at a time and many at once, so switching sessions never changes recall.
 */
class QuietOnnxModelTest {

    private static final List<String> TEXTS = List.of(
            "My sister Anna moved to Lisbon last spring.",
            "What was the name of the bakery near the river?",
            "I prefer green tea in the morning, never coffee.",
            "The quarterly report is due on 14 March 2027, amount 41,250 EUR.",
            "ok",
            "Ünïcödé, 日本語 and emoji 🙂 in one message",
            "word ".repeat(600));

    private final EmbeddingModel quiet = DefaultModel.get();
    private final EmbeddingModel langchain4j = new AllMiniLmL6V2QuantizedEmbeddingModel();

    @Test
    void isTheQuietSession() {
        assertThat(quiet).isInstanceOf(QuietOnnxModel.class);
        assertThat(quiet.dimension()).isEqualTo(langchain4j.dimension()).isEqualTo(384);
        assertThat(DefaultModel.get()).isSameAs(quiet);
    }

    @Test
    void givesLangChain4jsVectorsOneAtATime() {
        for (String text : TEXTS) {
            Embedding ours = quiet.embed(text).content();
            Embedding theirs = langchain4j.embed(text).content();
            assertThat(ours.dimension()).isEqualTo(384);
            assertThat(CosineSimilarity.between(ours, theirs)).as(text).isGreaterThan(0.9999);
        }
    }

    @Test
    void givesTheSameVectorsManyAtOnce() {
        List<TextSegment> segments = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            segments.add(TextSegment.from(TEXTS.get(i % TEXTS.size()) + " #" + i));
        }
        List<Embedding> all = quiet.embedAll(segments).content();
        assertThat(all).hasSize(segments.size());
        for (int i = 0; i < segments.size(); i++) {
            Embedding one = langchain4j.embed(segments.get(i)).content();
            assertThat(CosineSimilarity.between(all.get(i), one)).as(segments.get(i).text()).isGreaterThan(0.9999);
        }
    }
}
