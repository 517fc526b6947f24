package io.github.memorypack.core;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Entry ids: random version-4 UUIDs from a fast non-blocking source (ids need uniqueness, not secrecy). */
public final class Ids {

    private Ids() {
    }

    public static String newId() {
        return uuid(randomUuidHigh(), randomUuidLow());
    }

    /** The high 64 bits of a random version-4 UUID. */
    public static long randomUuidHigh() {
        return (ThreadLocalRandom.current().nextLong() & ~0xF000L) | 0x4000L;
    }

    /** The low 64 bits of a random version-4 UUID (IETF variant). */
    public static long randomUuidLow() {
        return (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    }

    /** The UUID with these bits in its usual text form. */
    public static String uuid(long high, long low) {
        return new UUID(high, low).toString();
    }

    /** Checks an idempotency key: {@code null} is allowed (no key). */
    public static String checkIdempotencyKey(String key, int maxLength) {
        if (key != null && (key.isBlank() || key.length() > maxLength)) {
            throw new IllegalArgumentException("idempotency key must be non-blank and at most " + maxLength
                    + " characters");
        }
        return key;
    }
}
