package io.github.memorypack.core;

/**
 * The one place session ids are validated. A valid id is 1–128 characters of
 * {@code [A-Za-z0-9._-]} and is neither {@code .} nor {@code ..}: safe as a file name and as a
 * literal part of a key, so no store can be tricked into path traversal or pattern widening.
 */
public final class SessionIds {

    /** Longest accepted id, in characters. */
    public static final int MAX_LENGTH = 128;

    private SessionIds() {
    }

    /**
     * Converts a LangChain4j memory id to a session id ({@code String.valueOf(memoryId)}) and
     * validates it.
     *
     * @throws InvalidSessionIdException if the id is null or not valid
     */
    public static String of(Object memoryId) {
        if (memoryId == null) {
            throw new InvalidSessionIdException("session id must not be null");
        }
        return validate(String.valueOf(memoryId));
    }

    /**
     * Returns {@code sessionId} unchanged if it is valid.
     *
     * @throws InvalidSessionIdException if it is not
     */
    public static String validate(String sessionId) {
        if (sessionId == null) {
            throw new InvalidSessionIdException("session id must not be null");
        }
        int length = sessionId.length();
        if (length == 0 || length > MAX_LENGTH) {
            throw new InvalidSessionIdException(
                    "session id must be 1-" + MAX_LENGTH + " characters, was " + length);
        }
        if (sessionId.equals(".") || sessionId.equals("..")) {
            throw new InvalidSessionIdException("session id must not be '" + sessionId + "'");
        }
        for (int i = 0; i < length; i++) {
            char c = sessionId.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                throw new InvalidSessionIdException(String.format(
                        "session id may only contain [A-Za-z0-9._-]; found U+%04X at position %d", (int) c, i));
            }
        }
        return sessionId;
    }

    /**
     * Checks an idempotency key as every store must before any I/O: {@code null} (no key) is allowed.
     *
     * @return the key
     * @throws IllegalArgumentException if it is blank or longer than {@link SessionStore#MAX_IDEMPOTENCY_KEY_LENGTH}
     */
    public static String checkIdempotencyKey(String key) {
        if (key != null && (key.isBlank() || key.length() > SessionStore.MAX_IDEMPOTENCY_KEY_LENGTH)) {
            throw new IllegalArgumentException("idempotency key must be non-blank and at most "
                    + SessionStore.MAX_IDEMPOTENCY_KEY_LENGTH + " characters");
        }
        return key;
    }

    /** True if {@link #validate(String)} would accept the id. */
    public static boolean isValid(String sessionId) {
        try {
            validate(sessionId);
            return true;
        } catch (InvalidSessionIdException e) {
            return false;
        }
    }
}
