package io.github.memorypack.core;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Entry ids: random version-4 UUIDs from a fast non-blocking source (ids need uniqueness, not secrecy). */
final class Ids {

    private Ids() {
    }

    /** A new random version-4 UUID in its usual text form. */
    static String newId() {
        return uuid(randomUuidHigh(), randomUuidLow());
    }

    /** The high 64 bits of a random version-4 UUID. */
    static long randomUuidHigh() {
        return (ThreadLocalRandom.current().nextLong() & ~0xF000L) | 0x4000L;
    }

    /** The low 64 bits of a random version-4 UUID (IETF variant). */
    static long randomUuidLow() {
        return (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    }

    /** The UUID with these bits in its usual text form. */
    static String uuid(long high, long low) {
        return new UUID(high, low).toString();
    }
}
