package io.github.memorypack.testkit;

import io.github.memorypack.core.ChatMemoryStoreAdapter;
import io.github.memorypack.core.SessionStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import java.time.Clock;

/**
 * The contract on the adapter over LangChain4j's own {@link InMemoryChatMemoryStore}. A restart is
 * a new adapter over the same wrapped store: everything the adapter knows must come from there.
 */
class ChatMemoryStoreAdapterContractTest extends SessionStoreContract {

    private InMemoryChatMemoryStore wrapped;

    @Override
    protected SessionStore createStore(Clock clock) {
        wrapped = new InMemoryChatMemoryStore();
        return ChatMemoryStoreAdapter.of(wrapped, clock);
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        return ChatMemoryStoreAdapter.of(wrapped, clock());
    }
}
