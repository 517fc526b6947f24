package io.github.memorypack.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that dies in the middle of a request (killed while the model answers) leaves its turn open in
 * the log. On a file store the next process knows that turn's process has ended, so the turn holds up
 * nothing: the session's next request neither waits for it nor is refused. A turn of a process that
 * still runs is respected as before.
 */
@Tag("slow")
class CrashedRequestTest {

    private static final String SESSION = "s";
    private static final String INTERRUPTED = "the question whose process was killed";

    @TempDir
    Path folder;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process child : children) {
            child.toHandle().destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static ChatMemory memory(SessionStore store, ConcurrentSends sends) {
        return MemoryOptions.builder().chatMemoryStore(store).concurrentSends(sends).build()
                .memory(TestStrategies.BUFFER, SESSION);
    }

    @Test
    @Timeout(60)
    void should_not_hold_up_the_next_request_with_the_open_turn_of_a_process_that_was_killed() throws Exception {
        // given: a process that asked a question and is killed while "the model answers"
        Process child = asking();
        assertThat(child.toHandle().destroyForcibly()).isTrue();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

        // when: the application starts again and the user asks on the same session (queue, the default)
        FileSessionStore store = FileSessionStore.of(folder);
        ChatMemory memory = memory(store, ConcurrentSends.queue());
        long start = System.nanoTime();
        List<ChatMessage> view = memory.messages();
        memory.add(UserMessage.from("a new question after the restart"));
        memory.add(AiMessage.from("an answer"));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        // then: nothing waited for the dead process's turn (it waited 30 s and was refused before)
        assertThat(millis).isLessThan(5_000);
        // and its question is kept, as an abandoned turn
        assertThat(view).extracting(ChatMemoryTestText::text).containsExactly("hello", "hi", INTERRUPTED);
        assertThat(memory.messages()).extracting(ChatMemoryTestText::text)
                .containsExactly("hello", "hi", INTERRUPTED, "a new question after the restart", "an answer");
        // and the dead process's mark is gone from the folder
        try (Stream<Path> marks = Files.list(folder.resolve(".processes"))) {
            assertThat(marks.filter(p -> p.toString().endsWith(".lock"))).hasSize(1); // this JVM's own
        }
    }

    @Test
    @Timeout(60)
    void should_still_respect_the_open_turn_of_a_process_that_runs() throws Exception {
        // given: a process that asked a question and is still waiting for its answer
        asking();

        // when: this process asks on the same session, refusing rather than waiting
        FileSessionStore store = FileSessionStore.of(folder);
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
                System.getProperty("java.class.path"), AskingProcess.class.getName(), folder.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        children.add(child);
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8));
        assertThat(out.readLine()).isEqualTo("asked");
        return child;
    }

    /** The process whose request is cut off: one closed turn, then a question, then it waits for its end. */
    public static final class AskingProcess {
        /** Reachable while the process runs, as an application's memories are (its store holds the process mark). */
        static ChatMemory memory;

        public static void main(String[] args) throws Exception {
            memory = memory(FileSessionStore.of(Path.of(args[0])), ConcurrentSends.queue());
            memory.add(UserMessage.from("hello"));
            memory.add(AiMessage.from("hi"));
            memory.add(UserMessage.from(INTERRUPTED));
            System.out.println("asked");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE); // the model "answers" until the process is killed
        }
    }

    /** The text of a message of these tests. */
    private static final class ChatMemoryTestText {
        static String text(ChatMessage message) {
            return message instanceof UserMessage ? ((UserMessage) message).singleText() : ((AiMessage) message).text();
        }
    }
}
