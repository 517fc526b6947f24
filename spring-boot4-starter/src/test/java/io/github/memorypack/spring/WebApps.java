package io.github.memorypack.spring;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Conversations;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;

/** What the web tests share: a real HTTP client for the application's Tomcat, and the log as lines. */
final class WebApps {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private WebApps() {
    }

    /**
     * Called before a test's Tomcat starts: Tomcat would set the JVM's one URLStreamHandlerFactory from the
     * test's class loader, and then the Tomcat of ReadmeApplicationsTest's application, on a class loader of
     * its own in this JVM, fails to start.
     */
    static void letOtherTomcatsStart() {
        org.apache.catalina.webresources.TomcatURLStreamHandlerFactory.disable();
    }

    /** GET {@code path?user=…&q=…} on the application's port. */
    static HttpResponse<String> get(ConfigurableApplicationContext app, String path, String user, String question) {
        String port = app.getEnvironment().getProperty("local.server.port");
        URI uri = URI.create("http://127.0.0.1:" + port + path + "?user=" + URLEncoder.encode(user, StandardCharsets.UTF_8)
                + "&q=" + URLEncoder.encode(question, StandardCharsets.UTF_8));
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The session's current conversation, one line per message ("user: …", "ai: …", "ai: calls …", "tool: …"). */
    static List<String> conversation(ConfigurableApplicationContext app, String user) {
        List<String> lines = new ArrayList<>();
        for (Entry entry : Conversations.current(app.getBean(SessionStore.class), user)) {
            ChatMessage message = entry.message();
            if (message instanceof UserMessage u) {
                lines.add("user: " + u.singleText());
            } else if (message instanceof AiMessage a) {
                lines.add(a.hasToolExecutionRequests() ? "ai: calls " + a.toolExecutionRequests().get(0).arguments()
                        : "ai: " + a.text());
            } else if (message instanceof ToolExecutionResultMessage t) {
                lines.add("tool: " + t.text());
            }
        }
        return lines;
    }
}
