package io.github.memorypack.testkit.example;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.time.Clock;

/**
 * The README's example, compiled and run from another package, as a backend author's test would be:
 * proves the contract's inherited tests are discovered outside {@code io.github.memorypack.testkit}.
 * The assertions are the contract's own, inherited from {@link SessionStoreContract}.
 */
class ReadmeExampleContractTest extends SessionStoreContract {

    @Override
    protected SessionStore createStore(Clock clock) {
        return InMemorySessionStore.create(clock);
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        return store; // a persistent store returns a new instance over the same data here
    }

    @Override
    protected int appendsPerWriter() {
        return 100; // smaller concurrency runs, e.g. for a store behind a network
    }
}
