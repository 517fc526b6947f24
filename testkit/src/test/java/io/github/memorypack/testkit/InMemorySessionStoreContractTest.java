package io.github.memorypack.testkit;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import java.time.Clock;

/**
 * The store contract on the reference in-memory store.
 * The assertions are the contract's own, inherited from {@link SessionStoreContract}.
 */
class InMemorySessionStoreContractTest extends SessionStoreContract {

    @Override
    protected SessionStore createStore(Clock clock) {
        return InMemorySessionStore.create(clock);
    }
}
