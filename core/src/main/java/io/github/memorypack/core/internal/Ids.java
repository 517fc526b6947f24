package io.github.memorypack.core.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Entry ids: random version-4 UUIDs from a fast non-blocking source (ids need uniqueness, not secrecy). */
public final class Ids {

    private Ids() {
    }

    public static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long most = (random.nextLong() & ~0xF000L) | 0x4000L;
        long least = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(most, least).toString();
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
