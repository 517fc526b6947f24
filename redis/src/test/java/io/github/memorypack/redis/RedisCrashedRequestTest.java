package io.github.memorypack.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.SessionBusyException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.JedisPooled;

/**
 * A process that dies in the middle of a request (killed with SIGKILL while the model answers) leaves its
 * turn open in the session's log in Redis. Its process key expires (a short TTL here; 60 s by default)
 * since nothing refreshes it any more, so the session's next request, in another process, neither waits for
 * that turn nor is refused: it does not wait for the open-turn timeout (10 minutes). A turn of a process
 * that still runs is respected as before.
 */
@Tag("slow")
class RedisCrashedRequestTest {

    private static final String SESSION = "s";
    private static final String INTERRUPTED = "the question whose process was killed";
    static final Duration PROCESS_TTL = Duration.ofSeconds(1);

    private final String prefix = TestRedis.freshPrefix();
    private final List<Process> children = new ArrayList<>();
    private final List<RedisSessionStore> stores = new ArrayList<>();

    @AfterEach
    void cleanUp() throws InterruptedException {
        for (Process child : children) {
            child.toHandle().destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
        stores.forEach(RedisSessionStore::close);
    }

    static RedisSessionStore store(String uri, String prefix) {
        return RedisSessionStore.builder().uri(uri).keyPrefix(prefix).processTimeToLive(PROCESS_TTL).build();
    }

    static ChatMemory memory(RedisSessionStore store, ConcurrentSends sends) {
        return BufferChatMemory.builder().id(SESSION).chatMemoryStore(store).concurrentSends(sends).build();
    }

    @Test
    @Timeout(60)
    void should_not_hold_up_the_next_request_with_the_open_turn_of_a_process_that_was_killed() throws Exception {
        // given: a process that asked a question and is killed (SIGKILL) while "the model answers"
        Process child = asking();
        assertThat(child.toHandle().destroyForcibly()).isTrue();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        // and its process key has expired (nothing refreshes it)
        try (JedisPooled jedis = TestRedis.standaloneClient()) {
            long deadline = System.nanoTime() + PROCESS_TTL.multipliedBy(5).toNanos();
            while (!jedis.keys(RedisKeys.escapeGlob(prefix) + RedisProcesses.PART + "*").isEmpty()) {
                assertThat(System.nanoTime()).as("the killed process's key expired").isLessThan(deadline);
                Thread.sleep(20);
            }
        }

        // when: another instance of the application takes the session's next request (queue, the default)
        RedisSessionStore store = store(TestRedis.standaloneUri(), prefix);
        stores.add(store);
        ChatMemory memory = memory(store, ConcurrentSends.queue());
        long start = System.nanoTime();
        List<ChatMessage> view = memory.messages();
        memory.add(UserMessage.from("a new question after the crash"));
        memory.add(AiMessage.from("an answer"));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        // then: nothing waited for the dead process's turn (queue waited 30 s and refused before)
        assertThat(millis).isLessThan(5_000);
        // and its question is kept, as an abandoned turn
        assertThat(view).extracting(RedisCrashedRequestTest::text).containsExactly("hello", "hi", INTERRUPTED);
        assertThat(memory.messages()).extracting(RedisCrashedRequestTest::text)
                .containsExactly("hello", "hi", INTERRUPTED, "a new question after the crash", "an answer");
        // and a request that refuses to wait goes ahead too
        ChatMemory refusing = memory(store, ConcurrentSends.refuse());
        refusing.add(UserMessage.from("one more"));
        refusing.add(AiMessage.from("one more answer"));
    }

    @Test
    @Timeout(60)
    void should_still_respect_the_open_turn_of_a_process_that_runs() throws Exception {
        // given: a process that asked a question and is still waiting for its answer, well past its key's TTL
        asking();
        Thread.sleep(PROCESS_TTL.multipliedBy(3).toMillis());

        // when: this process asks on the same session, refusing rather than waiting
        RedisSessionStore store = store(TestRedis.standaloneUri(), prefix);
        stores.add(store);
        ChatMemory memory = memory(store, ConcurrentSends.refuse());

        // then: the running turn of the live process holds, as before
        assertThatThrownBy(() -> memory.add(UserMessage.from("a second question at the same time")))
                .isInstanceOf(SessionBusyException.class);
    }

    /** Starts a process that asks {@link #INTERRUPTED} after one closed turn, and waits until it has. */
    private Process asking() throws Exception {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process child = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m", "-cp",
                System.getProperty("java.class.path"), AskingProcess.class.getName(), TestRedis.standaloneUri(),
                prefix).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        children.add(child);
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8));
        assertThat(out.readLine()).isEqualTo("asked");
        return child;
    }

    private static String text(ChatMessage message) {
        return message instanceof UserMessage ? ((UserMessage) message).singleText() : ((AiMessage) message).text();
    }

    /** The process whose request is cut off: one closed turn, then a question, then it waits for its end. */
    public static final class AskingProcess {
        /** Reachable while the process runs, as an application's memories are. */
        static ChatMemory memory;

        public static void main(String[] args) throws Exception {
            memory = memory(store(args[0], args[1]), ConcurrentSends.queue());
            memory.add(UserMessage.from("hello"));
            memory.add(AiMessage.from("hi"));
            memory.add(UserMessage.from(INTERRUPTED));
            System.out.println("asked");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE); // the model "answers" until the process is killed
        }
    }
}
