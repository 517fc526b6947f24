/**
 * The embedded persistent store: {@link io.github.memorypack.core.file.FileSessionStore}, plain
 * files in one folder (an append-only, checksummed log per session, fsync per append, a
 * cross-process lock per session, crash recovery), safe for many threads and for several processes
 * sharing the folder. Its layout on disk and its durability contract are documented on the class.
 *
 * <p><b>Null policy.</b> As in {@link io.github.memorypack.core}: no parameter accepts
 * {@code null} unless documented (the idempotency key of an append); no method returns
 * {@code null}.
 */
package io.github.memorypack.core.file;
