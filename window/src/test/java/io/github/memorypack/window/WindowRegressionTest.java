package io.github.memorypack.window;

import java.time.Instant;
import io.github.memorypack.testkit.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.Tokenizers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The anchors' known failures, each as a test through the memory. */
class WindowRegressionTest {

    private static final ToolExecutionRequest CALL = ToolExecutionRequest.builder().id("call-1").name("stock")
            .arguments("{\"item\":\"tea\"}").build();

    private final InMemorySessionStore store = InMemorySessionStore.create();

    /** LangChain4j #585, #940, #1326, #3133: eviction left tool results without their AI message. */
    @Test
    void should_never_start_with_tool_result_when_window_cuts_through_a_tool_call_langchain4j_585_940_1326_3133() {
        // given: the last 3 messages are [result, AI, user]: a plain cut would start with the result
        WindowChatMemory memory = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(4).build();
        memory.add(SystemMessage.from("sys"));
        memory.add(UserMessage.from("tea in stock?"));
        memory.add(AiMessage.from(CALL));
        memory.add(ToolExecutionResultMessage.from(CALL, "12"));
        memory.add(AiMessage.from("12 left"));
        memory.add(UserMessage.from("thanks"));

        // when
        List<ChatMessage> view = memory.messages();

        // then
        assertThat(view).containsExactly(SystemMessage.from("sys"), UserMessage.from("thanks"));
    }

    /** LangChain4j #3806: a crash between tool request and result left a call that providers reject. */
    @Test
    void should_repair_dangling_tool_call_when_conversation_went_on_after_a_crash_langchain4j_3806() {
        // given: the process died while the tool ran; after the restart the user writes again
        MutableClock clock = MutableClock.at(Instant.now());
        WindowChatMemory before = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(10)
                .clock(clock).build();
        before.add(UserMessage.from("tea in stock?"));
        before.add(AiMessage.from(CALL));
        WindowChatMemory after = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(10)
                .clock(clock).build();
        after.add(UserMessage.from("hello?"));

        // when: no request ever sees a tool call without its result (what the provider rejects)
        List<ChatMessage> view = after.messages();

        // then: the thread moved on to a new question, so the call is repaired at once
        assertThat(view).containsExactly(UserMessage.from("tea in stock?"), AiMessage.from(CALL),
                ToolExecutionResultMessage.from(CALL, "no result: the tool call was interrupted"), UserMessage.from("hello?"));
    }

    /** LangChain4j #1966: concurrent requests on one memory id lost messages (read-modify-write). */
    @Test
    void should_keep_every_message_and_each_thread_order_when_16_threads_chat_on_one_session_langchain4j_1966()
            throws Exception {
        // given
        WindowChatMemory memory = WindowChatMemory.builder().id("shared").chatMemoryStore(store).maxMessages(20).build();
        int threads = 16;
        int turns = 100;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();

        // when
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < turns; i++) {
                    memory.add(UserMessage.from("t" + thread + " q" + i));
                    assertThat(memory.messages()).isNotEmpty();
                    memory.add(AiMessage.from("t" + thread + " a" + i));
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> future : done) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // then
        List<ChatMessage> log = store.getMessages("shared");
        assertThat(log).hasSize(threads * turns * 2);
        for (int t = 0; t < threads; t++) {
            String prefix = "t" + t + " ";
            List<String> mine = new ArrayList<>();
            for (ChatMessage message : log) {
                String text = message instanceof UserMessage ? ((UserMessage) message).singleText()
                        : ((AiMessage) message).text();
                if (text.startsWith(prefix)) {
                    mine.add(text.substring(prefix.length()));
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < turns; i++) {
                expected.add("q" + i);
                expected.add("a" + i);
            }
            assertThat(mine).isEqualTo(expected);
        }
    }

    /** Spring AI #7029: the window deleted evicted history from the persistent store. */
    @Test
    void should_keep_evicted_messages_in_the_store_when_window_moves_spring_ai_7029() {
        // given
        WindowChatMemory memory = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxTurns(1).build();

        // when
        for (int i = 0; i < 30; i++) {
            memory.add(UserMessage.from("q" + i));
            memory.add(AiMessage.from("a" + i));
            memory.messages();
        }

        // then
        assertThat(memory.messages()).containsExactly(UserMessage.from("q29"), AiMessage.from("a29"));
        assertThat(store.getMessages("s")).hasSize(60).startsWith(UserMessage.from("q0"));
    }

    /** LangChain4j's TokenWindowChatMemory re-counts the whole window on every eviction step. */
    @Test
    void should_count_each_message_once_when_window_is_limited_in_tokens() {
        // given
        CountingEstimator estimator = new CountingEstimator();
        WindowChatMemory memory = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxTokens(200)
                .tokenizer(estimator).build();
        memory.add(SystemMessage.from("be brief"));
        estimator.messageCalls.set(0);

        // when
        for (int i = 0; i < 100; i++) {
            memory.add(UserMessage.from("question number " + i));
            memory.messages();
            memory.add(AiMessage.from("answer number " + i));
            memory.messages();
        }

        // then: 200 messages counted once each; the pinned system message counted once by the view
        assertThat(estimator.messageCalls.get()).isEqualTo(201);
        assertThat(Tokenizers.o200k().estimateTokenCountInMessages(memory.messages())).isLessThanOrEqualTo(200);
    }

    private static final class CountingEstimator implements TokenCountEstimator {
        final AtomicInteger messageCalls = new AtomicInteger();

        @Override
        public int estimateTokenCountInText(String text) {
            return Tokenizers.o200k().estimateTokenCountInText(text);
        }

        @Override
        public int estimateTokenCountInMessage(ChatMessage message) {
            messageCalls.incrementAndGet();
            return Tokenizers.o200k().estimateTokenCountInMessage(message);
        }

        @Override
        public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
            return Tokenizers.o200k().estimateTokenCountInMessages(messages);
        }
    }
}
