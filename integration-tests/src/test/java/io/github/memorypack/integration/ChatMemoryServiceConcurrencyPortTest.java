package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.memory.ChatMemoryService;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Our port of LangChain4j 1.19's {@code ChatMemoryServiceConcurrencyTest} with our window's provider,
 * plus what that concurrency means for us: the one memory LangChain4j shares between concurrent
 * requests for a memory id must lose no message (LangChain4j #1966).
 */
class ChatMemoryServiceConcurrencyPortTest {

    private static final int THREADS = 10;

    @Test
    @DisplayName("ChatMemoryServiceConcurrencyTest.should_create_only_one_default_chat_memory_under_concurrent_load")
    void should_create_one_memory_when_many_threads_ask_for_the_default_memory_at_once() throws Exception {
        // given: a provider that stays busy until every thread has asked (instead of LangChain4j's sleep)
        ChatMemoryProvider windows = WindowChatMemory.builder().maxMessages(10).provider();
        CountDownLatch asked = new CountDownLatch(THREADS);
        List<ChatMemory> created = Collections.synchronizedList(new ArrayList<>());
        ChatMemoryService service = new ChatMemoryService((ChatMemoryProvider) id -> {
            await(asked);
            ChatMemory memory = windows.get(id);
            created.add(memory);
            return memory;
        });
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        List<Future<ChatMemory>> results = new ArrayList<>();

        // when
        try {
            for (int i = 0; i < THREADS; i++) {
                results.add(executor.submit(() -> {
                    await(start);
                    asked.countDown();
                    return service.getOrCreateChatMemory(ChatMemoryService.DEFAULT);
                }));
            }
            start.countDown();

            // then
            for (Future<ChatMemory> result : results) {
                assertThat(result.get(10, TimeUnit.SECONDS)).isSameAs(created.get(0));
            }
            assertThat(created).as("memories the provider created").hasSize(1);
            assertThat(created.get(0).id()).isEqualTo(ChatMemoryService.DEFAULT);
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void should_keep_every_message_in_each_threads_order_when_threads_add_through_the_shared_memory() throws Exception {
        // given: threads that only ask (none waits for an answer), side by side
        SessionStore store = InMemorySessionStore.create();
        ChatMemoryService service = new ChatMemoryService(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(10)
                .concurrentSends(ConcurrentSends.branch()).provider());
        int adds = 50;

        // when
        onEveryThread(service, (memory, thread) -> {
            for (int i = 0; i < adds; i++) {
                memory.add(UserMessage.from(thread + ":" + i));
            }
        });

        // then
        List<Entry> log = store.read("shared", 0, Integer.MAX_VALUE);
        assertThat(log).hasSize(THREADS * adds);
        for (int t = 0; t < THREADS; t++) {
            String prefix = t + ":";
            List<String> own = log.stream().map(Entry::message).map(m -> ((UserMessage) m).singleText())
                    .filter(text -> text.startsWith(prefix)).toList();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < adds; i++) {
                expected.add(prefix + i);
            }
            assertThat(own).as("thread %s's messages in its order", t).isEqualTo(expected);
        }
        List<ChatMessage> view = service.getOrCreateChatMemory("shared").messages();
        assertThat(view).hasSize(10);
    }

    @Test
    void should_keep_each_question_next_to_its_answer_when_threads_send_turns_through_the_shared_memory_in_a_queue()
            throws Exception {
        // given: the default ConcurrentSends.queue(): a turn that starts while another runs waits for it
        SessionStore store = InMemorySessionStore.create();
        ChatMemoryService service = new ChatMemoryService(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(10)
                .provider());
        int turns = 20;

        // when: each thread sends whole turns, as a blocking request does
        onEveryThread(service, (memory, thread) -> {
            for (int i = 0; i < turns; i++) {
                memory.add(UserMessage.from(thread + ":" + i));
                memory.add(AiMessage.from("answer " + thread + ":" + i));
            }
        });

        // then: every message is kept, and no question is followed by another request's question or answer
        List<Entry> log = store.read("shared", 0, Integer.MAX_VALUE);
        assertThat(log).hasSize(THREADS * turns * 2);
        for (int i = 0; i < log.size(); i += 2) {
            String question = ((UserMessage) log.get(i).message()).singleText();
            assertThat(((AiMessage) log.get(i + 1).message()).text()).as("the entry after question %s", question)
                    .isEqualTo("answer " + question);
        }
    }

    /** Runs {@code work} on {@value #THREADS} threads at once, each with the service's memory "shared" and its number. */
    private static void onEveryThread(ChatMemoryService service,
                                      java.util.function.BiConsumer<ChatMemory, Integer> work) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(executor.submit(() -> {
                    await(start);
                    work.accept(service.getOrCreateChatMemory("shared"), thread);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
