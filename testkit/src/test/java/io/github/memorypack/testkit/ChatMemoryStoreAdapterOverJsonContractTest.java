package io.github.memorypack.testkit;

import io.github.memorypack.core.ChatMemoryStoreAdapter;
import io.github.memorypack.core.SessionStore;
import java.time.Clock;

/**
 * The contract on the adapter over a store that keeps only LangChain4j JSON, as persistent community
 * stores do: the hidden record (ids, timestamps, tokens, metadata, keys, state) must survive that
 * serialization. Every append rewrites the whole JSON list, so the concurrency runs are smaller.
 */
class ChatMemoryStoreAdapterOverJsonContractTest extends SessionStoreContract {

    private JsonChatMemoryStore wrapped;

    @Override
    protected SessionStore createStore(Clock clock) {
        wrapped = new JsonChatMemoryStore();
        return ChatMemoryStoreAdapter.of(wrapped, clock);
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        return ChatMemoryStoreAdapter.of(wrapped, clock());
    }

    @Override
    protected int concurrentWriters() {
        return 4;
    }

    @Override
    protected int appendsPerWriter() {
        return 25;
    }

    @Override
    protected int casIncrementsPerWriter() {
        return 20;
    }
}
