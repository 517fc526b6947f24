package io.github.memorypack.testkit;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store contract on {@link FileSessionStore}; {@link #reopen} opens a new instance on the same folder.
 * The assertions are the contract's own, inherited from {@link SessionStoreContract}.
 */
class FileSessionStoreContractTest extends SessionStoreContract {

    @TempDir
    Path folder;

    @Override
    protected SessionStore createStore(Clock clock) {
        return FileSessionStore.builder().directory(folder.resolve("sessions")).clock(clock).build();
    }

    /**
     * Every successful compare-and-set writes, forces and renames a file and forces the folder (two
     * disk flushes), so the state concurrency tests run fewer rounds here; the concurrent append test
     * keeps its full size (appends are group-committed).
     */
    @Override
    protected int casIncrementsPerWriter() {
        return 25;
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        return FileSessionStore.builder().directory(((FileSessionStore) store).directory()).clock(clock()).build();
    }
}
