package io.github.memorypack.testkit;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import java.time.Clock;

class InMemorySessionStoreContractTest extends SessionStoreContract {

    @Override
    protected SessionStore createStore(Clock clock) {
        return InMemorySessionStore.create(clock);
    }
}
