package io.github.memorypack.core;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Makes a request's appends idempotent. Inside {@link #call}/{@link #run}, every message a Memory
 * Pack memory appends on this thread carries an idempotency key made of the request id and an
 * ordinal counted per session ({@code requestId#0}, {@code requestId#1}, …, one per
 * {@code add()} call, including system-message adds that change nothing). When a request is
 * retried with the same id (a client retry, a double click, a redelivered queue message), its
 * adds produce the same keys in the same order and the store keeps the first copy: the turn is
 * stored once.
 *
 * <pre>{@code
 * String answer = RequestScope.call(httpRequestId, () -> assistant.chat(sessionId, question));
 * }</pre>
 *
 * <p>The scope is bound to the calling thread; work the request hands to other threads is not in
 * it. Scopes nest: an inner scope hides the outer one until it ends.
 */
public final class RequestScope {

    /** Longest accepted request id, in characters (the key adds {@code #} and an ordinal). */
    public static final int MAX_REQUEST_ID_LENGTH = 200;

    private static final ThreadLocal<RequestScope> CURRENT = new ThreadLocal<>();

    private final String requestId;
    private final Map<String, Integer> ordinals = new HashMap<>();

    private RequestScope(String requestId) {
        this.requestId = requestId;
    }

    /**
     * Runs {@code supplier} with {@code requestId} as the current request.
     *
     * @throws IllegalArgumentException if the id is blank or longer than {@link #MAX_REQUEST_ID_LENGTH}
     */
    public static <T> T call(String requestId, Supplier<T> supplier) {
        Objects.requireNonNull(supplier, "supplier");
        RequestScope outer = CURRENT.get();
        CURRENT.set(new RequestScope(checkRequestId(requestId)));
        try {
            return supplier.get();
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }

    /** {@link #call} for work without a result. */
    public static void run(String requestId, Runnable runnable) {
        Objects.requireNonNull(runnable, "runnable");
        call(requestId, () -> {
            runnable.run();
            return null;
        });
    }

    /** The current request id on this thread, if any. */
    public static Optional<String> currentRequestId() {
        RequestScope scope = CURRENT.get();
        return scope == null ? Optional.empty() : Optional.of(scope.requestId);
    }

    /**
     * The idempotency key for the next append to {@code sessionId} in the current scope, or
     * {@code null} outside a scope. Each call consumes one ordinal of that session.
     */
    public static String nextKey(String sessionId) {
        RequestScope scope = CURRENT.get();
        if (scope == null) {
            return null;
        }
        int ordinal = scope.ordinals.merge(sessionId, 1, Integer::sum) - 1;
        return scope.requestId + '#' + ordinal;
    }

    private static String checkRequestId(String requestId) {
        Objects.requireNonNull(requestId, "requestId");
        if (requestId.isBlank() || requestId.length() > MAX_REQUEST_ID_LENGTH) {
            throw new IllegalArgumentException("request id must be non-blank and at most "
                    + MAX_REQUEST_ID_LENGTH + " characters");
        }
        return requestId;
    }
}
