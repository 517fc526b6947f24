package io.github.memorypack.testkit;

import dev.langchain4j.store.memory.chat.ChatMemoryStore;

/**
 * The contract on the adapter over a store that keeps only LangChain4j JSON, as persistent community
 * stores do: the hidden record (ids, timestamps, tokens, metadata, keys, state) must survive that
 * serialization. Every append rewrites and re-parses the whole JSON list, so the concurrency runs
 * are smaller.
 * The assertions are the contract's own, inherited from {@link SessionStoreContract}.
 */
class ChatMemoryStoreAdapterOverJsonContractTest extends ChatMemoryStoreAdapterContractTest {

    @Override
    ChatMemoryStore newWrappedStore() {
        return new JsonChatMemoryStore();
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
