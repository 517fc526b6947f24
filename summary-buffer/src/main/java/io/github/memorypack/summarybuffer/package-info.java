/**
 * {@link io.github.memorypack.summarybuffer.SummaryBufferChatMemory}: a LangChain4j {@code ChatMemory} that shows the recent turns of a session verbatim up to a token budget, after a summary of everything older. It
 * is one {@link io.github.memorypack.core.MemoryStrategy} over Memory Pack's engine, written against
 * the public strategy SPI of {@code memory-pack-core} only; every shared option is a
 * {@link io.github.memorypack.core.MemoryOptions}.
 *
 * <p><b>Null policy.</b> As in {@link io.github.memorypack.core}: no parameter accepts
 * {@code null} unless documented; no method returns {@code null}.
 */
package io.github.memorypack.summarybuffer;
