package io.github.memorypack.redis;

/**
 * Benchmark-only access to the store's package-private switch for write tokens, so that
 * {@code RedisClusterTurnBenchmark} can measure what they cost per append. A store without them can
 * store a resent write twice: never use this outside a benchmark.
 */
public final class WriteTokensOff {

    private WriteTokensOff() {
    }

    /** {@code builder} with write tokens off. */
    public static RedisSessionStore.Builder apply(RedisSessionStore.Builder builder) {
        return builder.writeTokens(false);
    }
}
