package io.github.memorypack.recall;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The default in-process model, counting the texts it embeds. */
final class CountingEmbeddingModel implements EmbeddingModel {

    final AtomicInteger texts = new AtomicInteger();
    private final EmbeddingModel model = DefaultModel.get();
    private final String name;

    CountingEmbeddingModel() {
        this("unknown");
    }

    /** One that says it is the model {@code name} (as one client class serving many models does). */
    CountingEmbeddingModel(String name) {
        this.name = name;
    }

    @Override
    public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
        texts.addAndGet(segments.size());
        return model.embedAll(segments);
    }

    @Override
    public int dimension() {
        return 384;
    }

    @Override
    public String modelName() {
        return name;
    }
}
