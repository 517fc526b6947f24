package io.github.memorypack.memorymd;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared store contract, on real files, with every append forced to disk. The assertions are
 * the contract's own, inherited from {@link SessionStoreContract}.
 */
class MemoryMdSessionStoreContractTest extends SessionStoreContract {

    @TempDir
    Path dir;

    @Override
    protected SessionStore createStore(Clock clock) {
        return MemoryMdSessionStore.builder().directory(dir).clock(clock).build();
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        return createStore(clock());
    }

    // every append is an fsync: keep the concurrency tests meaningful but short
    @Override
    protected int concurrentWriters() {
        return 8;
    }

    @Override
    protected int appendsPerWriter() {
        return 40;
    }

    @Override
    protected int casIncrementsPerWriter() {
        return 25;
    }
}
