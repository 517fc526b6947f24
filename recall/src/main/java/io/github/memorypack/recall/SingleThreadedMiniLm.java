package io.github.memorypack.recall;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import java.io.IOException;
import java.io.InputStream;

/**
 * The default model — LangChain4j's quantized all-MiniLM-L6-v2, the same ONNX file, tokenizer and mean
 * pooling as {@code AllMiniLmL6V2QuantizedEmbeddingModel}, so the same vectors — in an ONNX session
 * that computes each embedding on the calling thread alone. LangChain4j's session splits every
 * embedding over a pool of as many threads as the machine has cores; a short text gains little from
 * that, and when another thread of the process (a Lucene merge, a request) or of the machine holds a
 * core, the split embedding waits for its descheduled worker: the tail of a recall request. Batches
 * ({@code embedAll}, a rebuild) are still spread over the model's executor, one text per thread.
 *
 * <p>Only referenced once the model's artifact is known to be on the class path.
 */
final class SingleThreadedMiniLm extends AbstractInProcessEmbeddingModel {

    private static final String MODEL = "all-minilm-l6-v2-q.onnx";
    private static final String TOKENIZER = "all-minilm-l6-v2-q-tokenizer.json";
    private static final int DIMENSION = 384;

    private final OnnxBertBiEncoder encoder;

    private SingleThreadedMiniLm(OnnxBertBiEncoder encoder) {
        super(null);
        this.encoder = encoder;
    }

    /** Loads the model from the jar of {@code modelClass} (LangChain4j's class, which is not initialised). */
    static SingleThreadedMiniLm load(Class<?> modelClass) throws IOException {
        ClassLoader loader = modelClass.getClassLoader();
        byte[] model;
        try (InputStream in = loader.getResourceAsStream(MODEL)) {
            if (in == null) {
                throw new IOException(MODEL + " is not on the class path");
            }
            model = in.readAllBytes();
        }
        try (InputStream tokenizer = loader.getResourceAsStream(TOKENIZER)) {
            if (tokenizer == null) {
                throw new IOException(TOKENIZER + " is not on the class path");
            }
            OrtEnvironment environment = OrtEnvironment.getEnvironment();
            OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(1);
            OrtSession session = environment.createSession(model, options);
            return new SingleThreadedMiniLm(new OnnxBertBiEncoder(environment, session, tokenizer, PoolingMode.MEAN));
        } catch (OrtException e) {
            throw new IOException("could not open " + MODEL, e);
        }
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
