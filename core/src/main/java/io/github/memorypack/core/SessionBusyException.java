package io.github.memorypack.core;

/**
 * A request's user message was refused because another request's turn was still running in the
 * session ({@link ConcurrentSends#refuse()}, or {@link ConcurrentSends#queue()} after its wait).
 * Thrown before anything of the refused request was stored, so before {@code AiServices} calls the
 * model: the caller may retry later or tell the user the conversation is busy.
 */
public class SessionBusyException extends MemoryPackException {

    private static final long serialVersionUID = 1L;

    /** The session that was busy. */
    private final String sessionId;

    /**
     * An exception for a session.
     *
     * @param sessionId the session that is busy
     * @param message   what is running and what was waited for
     */
    public SessionBusyException(String sessionId, String message) {
        super(message);
        this.sessionId = sessionId;
    }

    /**
     * The session that was busy.
     *
     * @return the session id (see {@link SessionIds})
     */
    public String sessionId() {
        return sessionId;
    }
}
