/**
 * {@link io.github.memorypack.memorymd.MemoryMdSessionStore}: a
 * {@link io.github.memorypack.core.SessionStore} that keeps each session as a human-readable
 * {@code MEMORY.md} (one block per message, checksummed, parsed back into typed messages with their
 * roles) with archived snapshots, durable and locked across threads and processes. Use it with any
 * Memory Pack memory, or with {@link io.github.memorypack.memorymd.MemoryMdChatMemory} for the
 * preload-and-compact behaviour of the swarms {@code Conversation}.
 *
 * <p><b>Null policy.</b> As in {@link io.github.memorypack.core}: no parameter accepts
 * {@code null} unless documented (the idempotency key of an append); no method returns
 * {@code null}.
 */
package io.github.memorypack.memorymd;
