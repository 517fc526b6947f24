package io.github.memorypack.core;

import dev.langchain4j.data.message.SystemMessage;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The small record a session keeps next to its log: the application's current system message,
 * the running summary, free-form string attributes for strategies, and a version that every
 * successful {@link SessionStore#compareAndSetState compare-and-set} increments. An unknown session
 * has {@link #EMPTY} (version 0). Immutable; the {@code with…} methods return copies with the same
 * version — the store assigns the next one.
 */
public final class SessionState {

    /** State of a session that has never had one. */
    public static final SessionState EMPTY = new SessionState(0, null, null, Map.of());

    private final long version;
    private final SystemMessage systemMessage;
    private final Summary summary;
    private final Map<String, String> attributes;

    /**
     * A state. Stores create states when they decode them; memories derive theirs with the
     * {@code with…} methods.
     *
     * @param version       the version (at least 0); stores assign it on every successful update
     * @param systemMessage the application's system message, or {@code null} for none
     * @param summary       the running summary, or {@code null} for none
     * @param attributes    strategy attributes, copied; {@code null} or empty for none
     * @throws IllegalArgumentException if {@code version < 0}
     * @throws NullPointerException     if {@code attributes} holds a null key or value
     */
    public SessionState(long version, SystemMessage systemMessage, Summary summary, Map<String, String> attributes) {
        if (version < 0) {
            throw new IllegalArgumentException("version must be >= 0, was " + version);
        }
        this.version = version;
        this.systemMessage = systemMessage;
        this.summary = summary;
        this.attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }

    /**
     * The version: 0 for a session that never had a state, then one more on every successful
     * {@link SessionStore#compareAndSetState compare-and-set}.
     *
     * @return the version
     */
    public long version() {
        return version;
    }

    /**
     * The application's system message, pinned first in every view.
     *
     * @return the system message, or empty when there is none
     */
    public Optional<SystemMessage> systemMessage() {
        return Optional.ofNullable(systemMessage);
    }

    /**
     * The running summary of the session's older turns.
     *
     * @return the summary, or empty when there is none
     */
    public Optional<Summary> summary() {
        return Optional.ofNullable(summary);
    }

    /**
     * Immutable strategy attributes; empty when none.
     *
     * @return immutable strategy attributes; empty when none
     */
    public Map<String, String> attributes() {
        return attributes;
    }

    /**
     * This state with another system message, same version.
     *
     * @param systemMessage the system message, or {@code null} for none
     * @return a new state
     */
    public SessionState withSystemMessage(SystemMessage systemMessage) {
        return new SessionState(version, systemMessage, summary, attributes);
    }

    /**
     * This state with another summary, same version.
     *
     * @param summary the summary, or {@code null} for none
     * @return a new state
     */
    public SessionState withSummary(Summary summary) {
        return new SessionState(version, systemMessage, summary, attributes);
    }

    /**
     * This state with other attributes (replacing all of them), same version.
     *
     * @param attributes the attributes, copied; {@code null} or empty for none
     * @return a new state
     */
    public SessionState withAttributes(Map<String, String> attributes) {
        return new SessionState(version, systemMessage, summary, attributes);
    }

    /**
     * This state with the given version; used by stores when they store an update.
     *
     * @param version the version (at least 0)
     * @return this state with the given version; used by stores when they store an update
     */
    public SessionState withVersion(long version) {
        return new SessionState(version, systemMessage, summary, attributes);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SessionState)) {
            return false;
        }
        SessionState other = (SessionState) o;
        return version == other.version && Objects.equals(systemMessage, other.systemMessage)
                && Objects.equals(summary, other.summary) && attributes.equals(other.attributes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, systemMessage, summary, attributes);
    }

    @Override
    public String toString() {
        return "SessionState{version=" + version + ", systemMessage=" + systemMessage + ", summary=" + summary
                + (attributes.isEmpty() ? "" : ", attributes=" + attributes) + '}';
    }
}
