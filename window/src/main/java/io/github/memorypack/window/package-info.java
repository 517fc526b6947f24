/**
 * {@link io.github.memorypack.window.WindowChatMemory}: a LangChain4j {@code ChatMemory} that shows the newest messages, turns or tokens of a session, cut at whole turns, sliding or in chunks for prompt caches. It
 * is one {@link io.github.memorypack.core.MemoryStrategy} over Memory Pack's engine, written against
 * the public strategy SPI of {@code memory-pack-core} only; every shared option is a
 * {@link io.github.memorypack.core.MemoryOptions}.
 *
 * <p><b>Null policy.</b> As in {@link io.github.memorypack.core}: no parameter accepts
 * {@code null} unless documented; no method returns {@code null}.
 */
package io.github.memorypack.window;
