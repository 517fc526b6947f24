package io.github.memorypack.integration;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.time.Clock;

/**
 * The decorator changes nothing: it keeps the whole contract of the store it wraps.
 * The assertions are the contract's own, inherited from {@link SessionStoreContract}.
 */
class CountingSessionStoreContractTest extends SessionStoreContract {

    @Override
    protected SessionStore createStore(Clock clock) {
        return CountingSessionStore.of(InMemorySessionStore.create(clock));
    }
}
