package io.github.memorypack.benchmarks.redis;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The baseline: what the LangChain4j community Redis store does — the whole session is one JSON
 * value (LangChain4j's {@link ChatMessageSerializer} format), read with {@code GET} and rewritten
 * with {@code SET} on every update. Benchmark-only; not a store anyone should use.
 */
final class RewriteJsonRedisStore implements ChatMemoryStore {

    private final UnifiedJedis jedis;
    private final String prefix;

    RewriteJsonRedisStore(UnifiedJedis jedis, String prefix) {
        this.jedis = jedis;
        this.prefix = prefix;
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        String json = jedis.get(prefix + memoryId);
        return json == null ? new ArrayList<>() : new ArrayList<>(ChatMessageDeserializer.messagesFromJson(json));
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        jedis.set(prefix + memoryId, ChatMessageSerializer.messagesToJson(messages));
    }

    @Override
    public void deleteMessages(Object memoryId) {
        jedis.del(prefix + memoryId);
    }
}
