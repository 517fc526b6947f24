package io.github.memorypack.testkit;

import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.SessionStore;
import java.time.Clock;

/**
 * The contract on the adapter over LangChain4j's own {@link InMemoryChatMemoryStore}. A restart is
 * a new adapter over the same wrapped store: everything the adapter knows must come from there.
 * The assertions are the contract's own, inherited from {@link SessionStoreContract}.
 */
class ChatMemoryStoreAdapterContractTest extends SessionStoreContract {

    private ChatMemoryStore wrapped;

    /** The plain store the adapter wraps; a new one per test. */
    ChatMemoryStore newWrappedStore() {
        return new InMemoryChatMemoryStore();
    }

    @Override
    protected SessionStore createStore(Clock clock) {
        wrapped = newWrappedStore();
        return MemoryOptions.sessionStore(wrapped, clock);
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        return MemoryOptions.sessionStore(wrapped, clock());
    }
}
