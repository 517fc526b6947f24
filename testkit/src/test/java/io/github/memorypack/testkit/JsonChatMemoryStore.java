package io.github.memorypack.testkit;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A ChatMemoryStore that keeps each list as LangChain4j JSON text, the way database-backed community
 * stores do: nothing survives but what {@link ChatMessageSerializer} writes.
 */
final class JsonChatMemoryStore implements ChatMemoryStore {

    private final Map<Object, String> json = new ConcurrentHashMap<>();

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        String text = json.get(memoryId);
        return text == null ? List.of() : ChatMessageDeserializer.messagesFromJson(text);
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        json.put(memoryId, ChatMessageSerializer.messagesToJson(messages));
    }

    @Override
    public void deleteMessages(Object memoryId) {
        json.remove(memoryId);
    }
}
