package io.github.memorypack.core.conversation;

import java.util.Objects;

/**
 * How many messages of one role a session holds and their tokens. {@code tokens} adds the counts
 * stored with the entries (or estimated, when an estimator was given);
 * {@code messagesWithoutTokenCount} says how many entries had no count to add. Immutable.
 */
public final class RoleCount {

    private final long messages;
    private final long tokens;
    private final long messagesWithoutTokenCount;

    public RoleCount(long messages, long tokens, long messagesWithoutTokenCount) {
        this.messages = messages;
        this.tokens = tokens;
        this.messagesWithoutTokenCount = messagesWithoutTokenCount;
    }

    public long messages() {
        return messages;
    }

    public long tokens() {
        return tokens;
    }

    public long messagesWithoutTokenCount() {
        return messagesWithoutTokenCount;
    }

    RoleCount plus(long tokenCount) {
        return tokenCount < 0 ? new RoleCount(messages + 1, tokens, messagesWithoutTokenCount + 1)
                : new RoleCount(messages + 1, tokens + tokenCount, messagesWithoutTokenCount);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RoleCount)) {
            return false;
        }
        RoleCount other = (RoleCount) o;
        return messages == other.messages && tokens == other.tokens
                && messagesWithoutTokenCount == other.messagesWithoutTokenCount;
    }

    @Override
    public int hashCode() {
        return Objects.hash(messages, tokens, messagesWithoutTokenCount);
    }

    @Override
    public String toString() {
        return "RoleCount{messages=" + messages + ", tokens=" + tokens
                + (messagesWithoutTokenCount == 0 ? "" : ", withoutTokenCount=" + messagesWithoutTokenCount) + '}';
    }
}
