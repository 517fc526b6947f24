package io.github.memorypack.spring.boot3;

import io.github.memorypack.core.SessionStore;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Up while the store answers a read of one session's next index (a single small read on every
 * backend: a key look-up in Redis, one indexed row in JDBC); down, with the error, when it throws.
 */
final class MemoryPackHealthIndicator extends AbstractHealthIndicator {

    /** The session whose next index is read: any valid id works, it is never written. */
    static final String PROBE_SESSION = "memory-pack-health";

    private final SessionStore store;

    /** @param store the store whose health is reported */
    MemoryPackHealthIndicator(SessionStore store) {
        super("Memory Pack session store health check failed");
        this.store = store;
    }

    /**
     * Reads the probe session's next index.
     *
     * @param builder where the store's class goes when the read succeeds
     */
    @Override
    protected void doHealthCheck(Health.Builder builder) {
        store.nextIndex(PROBE_SESSION);
        builder.up().withDetail("store", store.getClass().getSimpleName());
    }
}
