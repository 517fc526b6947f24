package io.github.memorypack.buffer;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/**
 * Test chat model: a real {@link ChatModel} (LangChain4j's own {@code chat()} runs) that records
 * each request and answers from a script; the last scripted answer repeats.
 */
public final class ScriptedModel implements ChatModel {

    private final List<ChatRequest> requests = new ArrayList<>();
    private final Deque<Supplier<ChatResponse>> script = new ArrayDeque<>();

    public static ChatResponse reply(String text) {
        return ChatResponse.builder().aiMessage(AiMessage.from(text)).finishReason(FinishReason.STOP).build();
    }

    public synchronized ScriptedModel then(Supplier<ChatResponse> answer) {
        script.addLast(answer);
        return this;
    }

    public ScriptedModel thenReply(String text) {
        return then(() -> reply(text));
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        Supplier<ChatResponse> answer;
        synchronized (this) {
            requests.add(request);
            answer = script.size() > 1 ? script.pollFirst() : script.peekFirst();
        }
        if (answer == null) {
            throw new IllegalStateException("no scripted answer");
        }
        return answer.get();
    }

    public synchronized List<ChatRequest> requests() {
        return List.copyOf(requests);
    }
}
