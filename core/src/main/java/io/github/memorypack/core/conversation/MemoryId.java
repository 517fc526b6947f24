package io.github.memorypack.core.conversation;

import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A structured memory id — tenant, user, agent, session — mapped to one valid session id,
 * {@code <tenant>.<user>.<agent>.<session>}. Each part is 1 or more characters of
 * {@code [A-Za-z0-9_-]} (no dot, so the mapping is one-to-one and {@link #parse} inverts
 * {@link #key()}), and the key is at most {@link SessionIds#MAX_LENGTH} characters. Use a fixed
 * word such as {@code default} for a part you do not need. Immutable; usable directly as a
 * LangChain4j {@code @MemoryId} value through {@link #key()}.
 */
public final class MemoryId {

    private final String tenant;
    private final String user;
    private final String agent;
    private final String session;

    private MemoryId(String tenant, String user, String agent, String session) {
        this.tenant = part("tenant", tenant);
        this.user = part("user", user);
        this.agent = part("agent", agent);
        this.session = part("session", session);
        SessionIds.validate(key());
    }

    /**
     * @throws IllegalArgumentException if a part is null, empty or has a character outside
     *                                  {@code [A-Za-z0-9_-]}
     * @throws IllegalArgumentException if the key would be too long
     */
    public static MemoryId of(String tenant, String user, String agent, String session) {
        return new MemoryId(tenant, user, agent, session);
    }

    /**
     * The memory id a key was made from.
     *
     * @throws IllegalArgumentException if the key is not four valid parts joined by dots
     */
    public static MemoryId parse(String key) {
        Objects.requireNonNull(key, "key");
        String[] parts = key.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not a tenant.user.agent.session key: '" + key + "'");
        }
        return new MemoryId(parts[0], parts[1], parts[2], parts[3]);
    }

    /**
     * The memory ids of one user's sessions in a store (every agent), sorted by key. Sessions whose id
     * is not a structured key are ignored.
     */
    public static List<MemoryId> sessionsOf(SessionStore store, String tenant, String user) {
        String prefix = part("tenant", tenant) + "." + part("user", user) + ".";
        List<MemoryId> ids = new ArrayList<>();
        for (String sessionId : store.sessions()) {
            if (sessionId.startsWith(prefix)) {
                try {
                    ids.add(parse(sessionId));
                } catch (IllegalArgumentException notStructured) {
                    // a plain session id that happens to share the prefix
                }
            }
        }
        return ids;
    }

    /** The session id this memory id maps to. */
    public String key() {
        return tenant + "." + user + "." + agent + "." + session;
    }

    public String tenant() {
        return tenant;
    }

    public String user() {
        return user;
    }

    public String agent() {
        return agent;
    }

    public String session() {
        return session;
    }

    private static String part(String name, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be null or empty");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
                throw new IllegalArgumentException(String.format(
                        "%s may only contain [A-Za-z0-9_-]; found U+%04X at position %d", name, (int) c, i));
            }
        }
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemoryId && key().equals(((MemoryId) o).key());
    }

    @Override
    public int hashCode() {
        return key().hashCode();
    }

    /** The key. */
    @Override
    public String toString() {
        return key();
    }
}
