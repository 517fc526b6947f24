package io.github.memorypack.benchmarks.window;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.openai.OpenAiTokenCountEstimator;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;

/**
 * The memories under test, each pre-filled with the first {@code history} messages of a
 * {@link Conversation} on an in-memory store, and the chat turn every benchmark measures.
 *
 * <p>Ours keep the whole history in the log (a window is a view); LangChain4j's keep only what
 * their window holds, so they are pre-filled with exactly the tail a long conversation would have
 * left in their store: their steady state.
 */
final class Memories {

    static final String SESSION = "bench-session";

    private Memories() {
    }

    /**
     * One chat turn: add the user message, read the view that would be sent to the model, add the
     * reply. Returns the view so the caller can sink it.
     */
    static List<ChatMessage> turn(ChatMemory memory, ChatMessage user, ChatMessage reply) {
        memory.add(user);
        List<ChatMessage> view = memory.messages();
        memory.add(reply);
        return view;
    }

    static ChatMemory ourMessageWindow(Conversation conversation, int history, int maxMessages) {
        InMemorySessionStore store = InMemorySessionStore.create();
        conversation.prefill(store, SESSION, history, false); // maxMessages alone counts no tokens
        return WindowChatMemory.builder().id(SESSION).chatMemoryStore(store).maxMessages(maxMessages).build();
    }

    static ChatMemory ourTokenWindow(Conversation conversation, int history, int maxTokens) {
        InMemorySessionStore store = InMemorySessionStore.create();
        conversation.prefill(store, SESSION, history, true);
        return WindowChatMemory.builder().id(SESSION).chatMemoryStore(store)
                .maxTokens(maxTokens).tokenizer(Tokenizers.o200k()).build();
    }

    static ChatMemory langChain4jMessageWindow(Conversation conversation, int history, int maxMessages) {
        InMemoryChatMemoryStore store = new InMemoryChatMemoryStore();
        store.updateMessages(SESSION, conversation.messages(Math.max(0, history - maxMessages), history));
        return MessageWindowChatMemory.builder().id(SESSION).chatMemoryStore(store).maxMessages(maxMessages).build();
    }

    static ChatMemory langChain4jTokenWindow(Conversation conversation, int history, int maxTokens) {
        TokenCountEstimator estimator = new OpenAiTokenCountEstimator("gpt-4o-mini");
        InMemoryChatMemoryStore store = new InMemoryChatMemoryStore();
        int tail = conversation.tailFitting(history, maxTokens, estimator);
        store.updateMessages(SESSION, conversation.messages(history - tail, history));
        return TokenWindowChatMemory.builder().id(SESSION).chatMemoryStore(store)
                .maxTokens(maxTokens, estimator).build();
    }
}
