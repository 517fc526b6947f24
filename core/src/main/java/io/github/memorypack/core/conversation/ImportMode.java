package io.github.memorypack.core.conversation;

/** What {@link Conversations#importSession} does when the target session already exists. */
public enum ImportMode {
    /** Import only into a session that has no entries and no state; otherwise throw {@link IllegalStateException}. */
    NEW_SESSION_ONLY,
    /** Explicit confirmation: replace the target's log and state with the imported ones. */
    REPLACE_EXISTING
}
