/**
 * Memory Pack's core: LangChain4j {@code ChatMemory} strategies over one session-keyed,
 * append-only store.
 *
 * <ul>
 *   <li><b>Strategy SPI</b>: a {@link io.github.memorypack.core.MemoryStrategy} decides how much of a
 *       session to show and fold; {@link io.github.memorypack.core.MemoryOptions} holds what every
 *       memory shares and turns a strategy into a {@code ChatMemory} or a {@code ChatMemoryProvider},
 *       and the engine keeps every rule no strategy may break. The memories are strategies, one
 *       module each: {@code BufferChatMemory} (memory-pack-buffer), {@code WindowChatMemory}
 *       (memory-pack-window), {@code SummaryChatMemory} (memory-pack-summary),
 *       {@code SummaryBufferChatMemory} (memory-pack-summary-buffer) and {@code MemoryMdChatMemory}
 *       (memory-pack-memory-md). A memory is a view over the log: {@code add} appends, eviction
 *       never deletes.</li>
 *   <li><b>Store SPI</b>: {@link io.github.memorypack.core.SessionStore} (also a LangChain4j
 *       {@code ChatMemoryStore}), its values {@link io.github.memorypack.core.Entry},
 *       {@link io.github.memorypack.core.NewEntry}, {@link io.github.memorypack.core.SessionState},
 *       {@link io.github.memorypack.core.Summary}, and what implementers share:
 *       {@link io.github.memorypack.core.SessionIds} (memory ids to session ids, validation) and
 *       {@link io.github.memorypack.core.EntryCodec} (record encoding and checksums).
 *       {@link io.github.memorypack.core.InMemorySessionStore} is the default store; the persistent
 *       file store is in {@code io.github.memorypack.core.file}.</li>
 *   <li><b>Extension points</b>: {@link io.github.memorypack.core.Summarizer},
 *       {@link io.github.memorypack.core.Retention}, {@link io.github.memorypack.core.MemoryListener};
 *       tokens ({@link io.github.memorypack.core.Tokenizers},
 *       {@link io.github.memorypack.core.TokenAccounting}), requests
 *       ({@link io.github.memorypack.core.RequestScope}) and conversation tools
 *       ({@link io.github.memorypack.core.Conversations}).</li>
 *   <li><b>Errors</b>: every exception Memory Pack defines is an unchecked
 *       {@link io.github.memorypack.core.MemoryPackException}.</li>
 * </ul>
 *
 * <p><b>Null policy.</b> No parameter accepts {@code null} unless its documentation says so
 * (the idempotency key of an append, the absent system message or summary of a
 * {@link io.github.memorypack.core.SessionState}…). A {@code null} where none is accepted is
 * rejected with {@link java.lang.NullPointerException} or {@link java.lang.IllegalArgumentException}
 * before anything is changed; builders reject a {@code null} setting with
 * {@code IllegalArgumentException}, at the setter or at {@code build()}. No method returns
 * {@code null}: an absent value is an empty {@link java.util.Optional}, an empty collection, or a
 * documented constant such as {@link io.github.memorypack.core.SessionState#EMPTY}. A returned
 * collection is never a live view of a memory's or a store's state.
 *
 * <p>What may still change is marked {@link io.github.memorypack.core.Experimental}.
 */
package io.github.memorypack.core;
