package io.github.memorypack.core;

import java.util.HashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Memory ids and session ids. LangChain4j passes any object as a {@code @MemoryId}; a store keys
 * sessions by a <em>session id</em> that is safe as a file name, a key part and an SQL value. This
 * class maps one to the other, and is the one place session ids are validated.
 *
 * <h2>The mapping (a storage format: it never changes)</h2>
 * A memory id is taken by its text, {@code String.valueOf(memoryId)} (so {@code 42L} and
 * {@code "42"} are the same conversation, as in every LangChain4j store). Then:
 * <ul>
 *   <li>a text that is already a <em>plain</em> session id — 1–128 characters of
 *       {@code [A-Za-z0-9._-]}, not {@code .} or {@code ..} — is its own session id;</li>
 *   <li>any other text up to 95 UTF-8 bytes becomes {@code ~} followed by its UTF-8 bytes in
 *       unpadded base64url ({@code alice@example.com} → {@code ~YWxpY2VAZXhhbXBsZS5jb20});</li>
 *   <li>a longer text becomes {@code ~~} followed by the unpadded base64url SHA-256 of its UTF-8
 *       bytes; a memory keeps such a text in its session's state, so {@link #memoryId} can give it
 *       back.</li>
 * </ul>
 * Plain ids cannot start with {@code ~}, so two different texts never share a session id.
 *
 * <p>Stores accept exactly the ids this mapping produces — plain ids, and {@code ~} or {@code ~~}
 * followed by 1–126 base64url characters — and reject anything else with an
 * {@link IllegalArgumentException} before any I/O: no path traversal, no key-pattern widening.
 *
 * <p>Stateless and thread-safe.
 */
public final class SessionIds {

    /** Longest session id, in characters. */
    public static final int MAX_LENGTH = 128;
    /** State attribute holding the text of a memory id too long to encode reversibly. */
    static final String MEMORY_ID_ATTRIBUTE = "memory-pack.memory-id";

    private static final int MAX_ENCODED_BYTES = 95; // 127 base64url characters
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private SessionIds() {
    }

    /**
     * The session id of a memory id (see the mapping above).
     *
     * @param memoryId the memory id: any non-null object
     * @return the session id of a memory id (see the mapping above)
     * @throws IllegalArgumentException if {@code memoryId} is null
     */
    public static String of(Object memoryId) {
        if (memoryId == null) {
            throw new IllegalArgumentException("memory id must not be null");
        }
        String text = String.valueOf(memoryId);
        if (isPlain(text)) {
            return text;
        }
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 0 && utf8.length <= MAX_ENCODED_BYTES && isWellFormed(text)) {
            return "~" + ENCODER.encodeToString(utf8);
        }
        return "~~" + ENCODER.encodeToString(sha256(exactBytes(text)));
    }

    /** True if {@link #of} of this memory id is a hash, so the text is kept in the session state. */
    static boolean isHashed(String sessionId) {
        return sessionId.startsWith("~~");
    }

    /**
     * After an append under a hashed session id: keeps the memory id's text in the session's state
     * (once), so {@link #memoryId} can give it back. The append is already acknowledged, so a store
     * failure here is logged, not thrown; the next append tries again.
     */
    static void remember(SessionStore store, String sessionId, Object memoryId) {
        try {
            while (true) {
                SessionState state = store.state(sessionId);
                if (state.attributes().containsKey(MEMORY_ID_ATTRIBUTE)) {
                    return;
                }
                Map<String, String> attributes = new HashMap<>(state.attributes());
                attributes.put(MEMORY_ID_ATTRIBUTE, String.valueOf(memoryId));
                if (store.compareAndSetState(sessionId, state.version(), state.withAttributes(attributes)).isPresent()) {
                    return;
                }
            }
        } catch (StoreException e) {
            LoggerFactory.getLogger(SessionIds.class).warn("Session {} could not record its memory id in its state;"
                    + " the next append tries again", sessionId, e);
        }
    }

    /**
     * The text of the memory id that maps to {@code sessionId}: the id itself for a plain id, the
     * decoded text for an encoded one, and for a hashed one the text kept in the session's state
     * (or the session id when the state does not have it).
     *
     * @param store the store that holds the session's state
     * @param sessionId a session id
     * @return the memory id's text
     * @throws IllegalArgumentException if {@code sessionId} is not a valid session id
     */
    public static String memoryId(SessionStore store, String sessionId) {
        validate(sessionId);
        if (isHashed(sessionId)) {
            return store.state(sessionId).attributes().getOrDefault(MEMORY_ID_ATTRIBUTE, sessionId);
        }
        if (sessionId.startsWith("~")) {
            return new String(DECODER.decode(sessionId.substring(1)), StandardCharsets.UTF_8);
        }
        return sessionId;
    }

    /**
     * Returns {@code sessionId} unchanged if a store may use it.
     *
     * @param sessionId the session id to check; may be anything, {@code null} included
     * @return {@code sessionId}
     * @throws IllegalArgumentException if it is null or not a plain, encoded or hashed session id
     */
    public static String validate(String sessionId) {
        if (sessionId == null) {
            throw new IllegalArgumentException("session id must not be null");
        }
        int length = sessionId.length();
        if (length == 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("session id must be 1-" + MAX_LENGTH + " characters, was " + length);
        }
        if (sessionId.startsWith("~")) {
            int from = sessionId.startsWith("~~") ? 2 : 1;
            if (length == from) {
                throw new IllegalArgumentException("session id '" + sessionId + "' has nothing after its prefix");
            }
            for (int i = from; i < length; i++) {
                char c = sessionId.charAt(i);
                if (!(isAlphanumeric(c) || c == '-' || c == '_')) {
                    throw new IllegalArgumentException(String.format(
                            "encoded session id may only hold base64url characters; found U+%04X at position %d", (int) c, i));
                }
            }
            return sessionId;
        }
        if (sessionId.equals(".") || sessionId.equals("..")) {
            throw new IllegalArgumentException("session id must not be '" + sessionId + "'");
        }
        for (int i = 0; i < length; i++) {
            char c = sessionId.charAt(i);
            if (!(isAlphanumeric(c) || c == '.' || c == '_' || c == '-')) {
                throw new IllegalArgumentException(String.format(
                        "session id may only contain [A-Za-z0-9._-] (use SessionIds.of for any memory id);"
                                + " found U+%04X at position %d", (int) c, i));
            }
        }
        return sessionId;
    }

    /**
     * True if {@link #validate(String)} would accept the id.
     *
     * @param sessionId the session id to check; may be anything, {@code null} included
     * @return true if {@link #validate(String)} would accept the id
     */
    public static boolean isValid(String sessionId) {
        try {
            validate(sessionId);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Checks an idempotency key as every store must before any I/O: {@code null} (no key) is allowed.
     *
     * @param key the key, or {@code null} for none
     * @return the key
     * @throws IllegalArgumentException if it is blank or longer than {@link
     *                                  SessionStore#MAX_IDEMPOTENCY_KEY_LENGTH}
     */
    public static String checkIdempotencyKey(String key) {
        if (key != null && (key.isBlank() || key.length() > SessionStore.MAX_IDEMPOTENCY_KEY_LENGTH)) {
            throw new IllegalArgumentException("idempotency key must be non-blank and at most "
                    + SessionStore.MAX_IDEMPOTENCY_KEY_LENGTH + " characters");
        }
        return key;
    }

    /**
     * Checks the range of a {@link SessionStore#read} as every store must before any I/O, with the same
     * message everywhere.
     *
     * @param fromIndex the first index to read
     * @param maxCount  the most entries to return
     * @throws IllegalArgumentException if {@code fromIndex} or {@code maxCount} is negative
     */
    public static void checkReadRange(long fromIndex, int maxCount) {
        if (fromIndex < 0) {
            throw new IllegalArgumentException("fromIndex must be >= 0, was " + fromIndex);
        }
        if (maxCount < 0) {
            throw new IllegalArgumentException("maxCount must be >= 0, was " + maxCount);
        }
    }

    /**
     * Checks the count of a {@link SessionStore#readLast} as every store must before any I/O, with the
     * same message everywhere.
     *
     * @param count the most entries to return
     * @throws IllegalArgumentException if {@code count} is negative
     */
    public static void checkReadCount(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
    }

    private static boolean isPlain(String text) {
        int length = text.length();
        if (length == 0 || length > MAX_LENGTH || text.equals(".") || text.equals("..")) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (!(isAlphanumeric(c) || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlphanumeric(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** True if the text has no lone surrogate (UTF-8 carries it exactly). */
    private static boolean isWellFormed(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** UTF-16 code units as big-endian bytes: exact for any text, lone surrogates included. */
    private static byte[] exactBytes(String text) {
        // not String.getBytes(UTF_16BE): an encoder replaces a lone surrogate, so two texts would share a hash
        byte[] bytes = new byte[text.length() * 2];
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            bytes[2 * i] = (byte) (c >>> 8);
            bytes[2 * i + 1] = (byte) c;
        }
        return bytes;
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
