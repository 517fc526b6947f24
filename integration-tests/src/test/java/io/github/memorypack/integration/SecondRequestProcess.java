package io.github.memorypack.integration;

import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.SessionBusyException;
import io.github.memorypack.core.file.FileSessionStore;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Request B of {@link TwoRequests} in a JVM of its own: its own {@code FileSessionStore} on the
 * folder the test's JVM uses, its own memories and {@code AiServices}, the test's OpenAI server. Prints
 * {@code QUEUED} once it waits in the send gate, then {@code ANSWER <text>}, {@code BUSY <message>} or
 * {@code ERROR <exception>}, then one {@code TOOL <item>} line per stock check it ran.
 *
 * <p>Arguments: the store folder, the server's base URL, a {@link Strategy} name, a
 * {@link TwoRequests.Setting} name.
 */
public final class SecondRequestProcess {

    private SecondRequestProcess() {
    }

    public static void main(String[] args) {
        // as in the test's JVM (see the module's pom): B registers no listeners
        System.setProperty(io.github.memorypack.core.RequestScope.ListenersFactory.PROPERTY, "false");
        FileSessionStore store = FileSessionStore.of(Path.of(args[0]));
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(args[1]).apiKey("test-key").modelName("gpt-4o-mini")
                .maxRetries(0).build();
        Strategy strategy = Strategy.valueOf(args[2]);
        TwoRequests.Setting setting = TwoRequests.Setting.valueOf(args[3]);
        Shop.Tools tools = new Shop.Tools();
        Shop.Assistant assistant = AiServices.builder(Shop.Assistant.class).chatModel(model)
                .chatMemoryProvider(strategy.provider(store, setting.sends)).tools(tools).compensateOnToolErrors(true)
                .outputGuardrails(new Shop.NoSecrets(), new Shop.JsonOnly()).maxToolCallingRoundTrips(10).build();
        Thread request = Thread.currentThread();
        Thread watcher = new Thread(() -> {
            while (request.isAlive()) {
                if (TwoRequests.inGate(request)) {
                    System.out.println("QUEUED");
                    System.out.flush();
                    return;
                }
                LockSupport.parkNanos(200_000);
            }
        }, "queue watcher");
        watcher.setDaemon(true);
        watcher.start();
        try {
            String answer = assistant.chat(ShopTestBase.SESSION, TwoRequests.B);
            System.out.println("ANSWER " + answer);
        } catch (SessionBusyException e) {
            System.out.println("BUSY " + e.getMessage().replace('\n', ' '));
        } catch (RuntimeException e) {
            System.out.println("ERROR " + e.toString().replace('\n', ' '));
        }
        for (String item : tools.stockItems) {
            System.out.println("TOOL " + item);
        }
        System.out.flush();
        System.exit(0);
    }
}
