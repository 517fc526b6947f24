package io.github.memorypack.spring;

import io.github.memorypack.core.MemoryPackException;

/**
 * A configuration the auto-configuration cannot build: which property (a {@code memory-pack.*} one, or
 * the Spring property it depends on), the value it has, why that cannot work, and what to do.
 * {@link MemoryPackFailureAnalyzer} turns it into Spring Boot's "APPLICATION FAILED TO START" report.
 */
final class MemoryPackConfigurationException extends MemoryPackException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String value;
    private final String reason;
    private final String action;

    /**
     * @param property the property that decides it, e.g. {@code memory-pack.summarizer.model}
     * @param value    its value as bound, or {@code null} when it is unset
     * @param reason   why that cannot work, a sentence without a final period
     * @param action   what to change, in whole sentences
     * @param cause    the underlying failure, or {@code null}
     */
    MemoryPackConfigurationException(String property, String value, String reason, String action, Throwable cause) {
        super(property + (value == null ? "" : "=" + value) + ": " + reason + ". " + action, cause);
        this.property = property;
        this.value = value;
        this.reason = reason;
        this.action = action;
    }

    MemoryPackConfigurationException(String property, String value, String reason, String action) {
        this(property, value, reason, action, null);
    }

    String property() {
        return property;
    }

    String value() {
        return value;
    }

    String reason() {
        return reason;
    }

    String action() {
        return action;
    }
}
