package io.github.memorypack.core.file;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * A separate JVM that writes to a {@link FileSessionStore}, started by {@link FileSessionStoreProcessTest}.
 * <ul>
 *   <li>{@code append <folder> <session> <count> <tag>}: prints {@code ready}, waits for a line on
 *       stdin, appends {@code <tag>:<i>} for i in [0, count), prints {@code done}.</li>
 *   <li>{@code loop <folder> <session> <tag>}: prints {@code ready}, waits for a line on stdin, then
 *       appends three-entry batches {@code <tag>:<i>:0..2} (the first one large, so a write spans
 *       several pages) until killed, printing {@code ack <i>} after each append returned; after every
 *       fifth append it trims the log to its last two appends (so kills also hit trims).</li>
 * </ul>
 */
public final class StoreChild {

    static final int LARGE = 16_000;

    private StoreChild() {
    }

    public static void main(String[] args) throws Exception {
        FileSessionStore store = FileSessionStore.of(Path.of(args[1]));
        String session = args[2];
        if (args[0].equals("append")) {
            int count = Integer.parseInt(args[3]);
            String tag = args[4];
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            for (int i = 0; i < count; i++) {
                store.append(session, List.of(NewEntry.of(UserMessage.from(tag + ":" + i))));
            }
            System.out.println("done");
        } else {
            String tag = args[3];
            String padding = "x".repeat(LARGE);
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            for (int i = 0; i < 100_000; i++) {
                store.append(session, List.of(
                        NewEntry.of(UserMessage.from(tag + ":" + i + ":0:" + padding)),
                        NewEntry.of(AiMessage.from(tag + ":" + i + ":1")),
                        NewEntry.of(UserMessage.from(tag + ":" + i + ":2"))));
                System.out.println("ack " + i);
                if (System.out.checkError()) {
                    return; // the test is gone: stop instead of filling the disk
                }
                if (i % 5 == 4) {
                    store.trim(session, store.nextIndex(session) - 6);
                }
            }
        }
        System.out.flush();
    }
}
