package io.github.memorypack.recall;

import dev.langchain4j.model.embedding.EmbeddingModel;

/** The default in-process model, loaded once per class loader, only when first needed. */
final class DefaultModel {
    private static volatile EmbeddingModel instance;

    private DefaultModel() {
    }

    /**
     * One of the in-process models in recall's quiet session, with the given similarity floor (benchmarks):
     * {@code minilm} (the default's files), {@code e5} (e5-small-v2-q, "query: "/"passage: " prefixes) or
     * {@code bge} (bge-small-en-v1.5-q, CLS pooling, its retrieval instruction before queries); each needs its
     * artifact on the class path.
     */
    static EmbeddingModel quiet(String which, double floor) {
        try {
            ClassLoader resources = RecallContentRetriever.class.getClassLoader();
            Class<?> pooling = Class.forName("dev.langchain4j.model.embedding.onnx.PoolingMode");
            Object mean = pooling.getField("MEAN").get(null);
            Object[] args = switch (which) {
                case "minilm" -> new Object[] {"all-minilm-l6-v2-q.onnx", "all-minilm-l6-v2-q-tokenizer.json", "", "",
                        mean};
                case "e5" -> new Object[] {"e5-small-v2-q.onnx", "e5-small-v2-q-tokenizer.json", "query: ", "passage: ",
                        mean};
                case "bge" -> new Object[] {"bge-small-en-v1.5-q.onnx", "bge-small-en-v1.5-q-tokenizer.json",
                        "Represent this sentence for searching relevant passages: ", "", pooling.getField("CLS").get(null)};
                default -> throw new IllegalArgumentException("unknown model " + which);
            };
            return (EmbeddingModel) Class.forName(RecallContentRetriever.class.getPackageName() + ".QuietOnnxModel")
                    .getDeclaredConstructor(ClassLoader.class, String.class, String.class, String.class, String.class,
                            pooling, double.class)
                    .newInstance(resources, args[0], args[1], args[2], args[3], args[4], floor);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("could not load the in-process model " + which, e);
        }
    }

    static EmbeddingModel get() {
        EmbeddingModel model = instance;
        if (model == null) {
            synchronized (DefaultModel.class) {
                model = instance;
                if (model == null) {
                    model = load();
                    instance = model;
                }
            }
        }
        return model;
    }

    private static EmbeddingModel load() {
        try {
            // not initialized: its static initializer would load LangChain4j's own session of the model
            ClassLoader resources = Class.forName(RecallContentRetriever.DEFAULT_MODEL_CLASS, false,
                    RecallContentRetriever.class.getClassLoader()).getClassLoader();
            // by name: QuietOnnxModel extends a class of the optional artifact, found present above
            return (EmbeddingModel) Class.forName(RecallContentRetriever.class.getPackageName() + ".QuietOnnxModel")
                    .getDeclaredConstructor(ClassLoader.class).newInstance(resources);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("hybrid() needs the in-process embedding model on the class path: add "
                    + RecallContentRetriever.DEFAULT_MODEL_ARTIFACT + ", or leave hybrid() out (lexical), or pass embeddingModel(…)", e);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("could not load the default embedding model " + RecallContentRetriever.DEFAULT_MODEL_CLASS, e);
        }
    }
}
