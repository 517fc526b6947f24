/**
 * Recall: brings turns a bounded memory no longer shows back into the request when the question
 * needs them. {@link io.github.memorypack.recall.RecallContentRetriever} is a LangChain4j
 * {@code ContentRetriever} (and {@code RetrievalAugmentor} via {@code augmentor()}) over a session's
 * log, with hybrid retrieval (Lucene BM25 and an in-process embedding model, fused by reciprocal
 * rank); {@link io.github.memorypack.recall.RecallTool} is the same search as a {@code @Tool}.
 * The index is derived from the log and rebuilt from it whenever needed.
 *
 * <p>Both types are {@link io.github.memorypack.core.Experimental}.
 *
 * <p><b>Null policy.</b> As in {@link io.github.memorypack.core}: no parameter accepts
 * {@code null} unless documented; no method returns {@code null} (nothing found is an empty list).
 */
package io.github.memorypack.recall;
