package io.github.memorypack.redis;

import io.github.memorypack.core.SessionIds;
import java.util.List;
import java.util.Objects;

/**
 * Key names of one store. Every key of a session is {@code <prefix>{<sessionId>}:<part>}. Why this
 * keeps a session on one Redis Cluster slot whatever the prefix holds: the hash tag is the text
 * between the first '{' and the next '}'. If the prefix has no '{', that is the session id. If it
 * has one, the tag starts inside the prefix and ends either inside the prefix or at the '}' right
 * after the id (ids never contain braces) — the same text for every key of the session.
 */
final class RedisKeys {

    /** Marks a session as existing; also holds {@code base}, the index of the first retained entry. */
    static final String META = "meta";
    static final String LOG = "log";
    static final String BATCHES = "keys";
    static final String STATE = "state";
    /** Recent write tokens and their outcomes, the current generation (see {@link RedisScripts}). */
    static final String OPS = "ops";
    /** The previous generation of write tokens. */
    static final String OPS_OLD = "ops-old";

    private final String prefix;
    private final String metaPattern;

    RedisKeys(String prefix) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.metaPattern = escapeGlob(prefix) + "{*}:" + META;
    }

    String prefix() {
        return prefix;
    }

    String key(String sessionId, String part) {
        return prefix + '{' + sessionId + "}:" + part;
    }

    /** The keys a writing script gets, in the order the scripts use: log, meta, batches, state, ops, ops-old. */
    List<String> all(String sessionId) {
        return List.of(key(sessionId, LOG), key(sessionId, META), key(sessionId, BATCHES), key(sessionId, STATE),
                key(sessionId, OPS), key(sessionId, OPS_OLD));
    }

    /** The keys a reading script gets: log, meta. */
    List<String> logAndMeta(String sessionId) {
        return List.of(key(sessionId, LOG), key(sessionId, META));
    }

    /** SCAN pattern matching the meta key of every session of this store, and nothing wider. */
    String metaPattern() {
        return metaPattern;
    }

    /**
     * The session id of a key that {@link #metaPattern()} matched, or {@code null} when the key only
     * looks like ours (the '*' may have matched text that is not a valid id).
     */
    String sessionIdOfMetaKey(String key) {
        String head = prefix + '{';
        String tail = "}:" + META;
        if (!key.startsWith(head) || !key.endsWith(tail) || key.length() <= head.length() + tail.length()) {
            return null;
        }
        String id = key.substring(head.length(), key.length() - tail.length());
        return SessionIds.isValid(id) ? id : null;
    }

    /** Escapes Redis glob characters ({@code * ? [ ] \}) so that the text matches only itself. */
    static String escapeGlob(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }
}
