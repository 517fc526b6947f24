/**
 * {@link io.github.memorypack.micrometer.MemoryPackMetrics}: Micrometer meters for what memories
 * and stores do (view sizes, folds and their failures, overflows, store latency per backend). It is
 * a {@link io.github.memorypack.core.MemoryListener} and wraps stores to time them; no Spring is
 * needed. {@link io.github.memorypack.core.Experimental}: meter names may still change.
 *
 * <p><b>Null policy.</b> No parameter accepts {@code null} (rejected with
 * {@link java.lang.IllegalArgumentException}); no method returns {@code null}.
 */
package io.github.memorypack.micrometer;
