/**
 * {@link io.github.memorypack.redis.RedisSessionStore}: a
 * {@link io.github.memorypack.core.SessionStore} on Redis (Jedis), standalone or Cluster, for
 * applications that outgrow one machine: one list per session log and one hash per state, appends
 * and compare-and-set as Lua scripts, every record checksummed, keys under a prefix with the
 * session in a hash tag. {@link io.github.memorypack.redis.RedisUnavailableException} says that the
 * server could not be reached or answered too late.
 *
 * <p><b>Null policy.</b> As in {@link io.github.memorypack.core}: no parameter accepts
 * {@code null} unless documented (the idempotency key of an append); no method returns
 * {@code null}.
 */
package io.github.memorypack.redis;
