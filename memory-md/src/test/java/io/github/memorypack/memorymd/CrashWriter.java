package io.github.memorypack.memorymd;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import java.nio.file.Path;
import java.util.List;

/**
 * Child process of {@link CrashSafetyTest}: appends batches of three messages forever and prints
 * {@code ack <n>} after each append returns, until it is killed.
 */
public final class CrashWriter {

    private CrashWriter() {
    }

    public static void main(String[] args) {
        MemoryMdSessionStore store = MemoryMdSessionStore.of(Path.of(args[0]));
        String run = args[1];
        String padding = "x".repeat(3_000);
        for (int n = 0; ; n++) {
            store.append("crash", List.of(
                    NewEntry.of(UserMessage.from(run + "-" + n + "-a " + padding)),
                    NewEntry.of(UserMessage.from(run + "-" + n + "-b " + padding)),
                    NewEntry.of(UserMessage.from(run + "-" + n + "-c " + padding))));
            System.out.println("ack " + n);
            System.out.flush();
        }
    }
}
