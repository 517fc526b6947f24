package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@link ChatMemory} behaviour every strategy shares, composed by each public strategy class:
 * {@code add} is one atomic append per call, {@code set} and {@code clear} are LangChain4j's round
 * trips applied without loss ({@link SessionMemory#set}, {@link SessionMemory#clear}), and
 * {@code messages()} is the strategy's view. A strategy supplies its view and, optionally, what to
 * do when a turn ends (a summarizing memory folds).
 */
final class MemoryEngine implements ChatMemory {

    private final SessionMemory memory;
    private final Supplier<View> view;
    private final Runnable turnEnded;

    MemoryEngine(SessionMemory memory, Supplier<View> view, Runnable turnEnded) {
        this.memory = memory;
        this.view = view;
        this.turnEnded = turnEnded;
    }

    SessionMemory memory() {
        return memory;
    }

    @Override
    public Object id() {
        return memory.id();
    }

    @Override
    public void add(ChatMessage message) {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
        added(memory.add(List.of(message)));
    }

    @Override
    public void add(ChatMessage... messages) {
        if (messages != null && messages.length > 0) {
            add(Arrays.asList(messages));
        }
    }

    @Override
    public void add(Iterable<ChatMessage> messages) {
        if (messages != null) {
            List<ChatMessage> list = SessionMemory.checkedList(messages, false);
            if (!list.isEmpty()) {
                added(memory.add(list));
            }
        }
    }

    private void added(List<ChatMessage> conversation) {
        if (turnEnded == null) {
            return;
        }
        for (ChatMessage message : conversation) {
            if (message instanceof AiMessage && !((AiMessage) message).hasToolExecutionRequests()) {
                turnEnded.run();
                return;
            }
        }
    }

    /**
     * The strategy's view for the calling request; under {@link ConcurrentSends#queue()} a new
     * request waits here for another request's running turn to close ({@link SessionMemory#awaitOtherRequests}).
     */
    View view() {
        return memory.awaitOtherRequests(view.get(), view);
    }

    @Override
    public List<ChatMessage> messages() {
        return memory.show(view());
    }

    @Override
    public void set(Iterable<ChatMessage> messages) {
        View current = view();
        memory.afterView(current); // reported like a messages() call (MemoryListener#onView)
        memory.set(messages, current);
    }

    @Override
    public void clear() {
        memory.clear();
    }

    @Override
    public String toString() {
        return memory.toString();
    }
}
