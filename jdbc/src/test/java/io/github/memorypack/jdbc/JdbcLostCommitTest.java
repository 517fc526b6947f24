package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection lost after PostgreSQL committed, before its reply reached the store: a TCP proxy in
 * front of the real server forwards a {@code COMMIT}, waits for the server's answer (so the commit has
 * happened) and then cuts both sides instead of passing the answer on. The store's caller must get
 * the outcome that happened: the stored entries or state, never a {@code StoreException} for a write
 * that is in the database (the contract: a failed append is not visible).
 */
class JdbcLostCommitTest {

    private CommitCuttingProxy proxy;
    private HikariDataSource pool;
    private String prefix;
    private JdbcSessionStore store;

    @BeforeEach
    void open() throws IOException {
        String url = TestPostgres.jdbcUrl();
        proxy = new CommitCuttingProxy(url);
        pool = TestPostgres.pool(proxy.jdbcUrl(url), 2, Duration.ofSeconds(10));
        prefix = TestPostgres.freshPrefix();
        store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
        store.createSchema();
    }

    @AfterEach
    void close() throws IOException {
        TestPostgres.dropTables(pool, prefix);
        pool.close();
        proxy.close();
    }

    @Test
    void should_report_the_stored_entries_once_when_the_commit_reply_of_a_keyless_append_is_lost() {
        store.append("s", List.of(NewEntry.of(UserMessage.from("before"))));

        proxy.cutAfterNextCommit();
        List<Entry> stored = appendOrNull(List.of(NewEntry.of(UserMessage.from("q")), NewEntry.of(AiMessage.from("a"))),
                null);

        assertThat(proxy.cut()).as("the proxy cut the commit's reply").isTrue();
        List<Entry> log = store.read("s", 0, 10);
        assertThat(log).as("the append committed").hasSize(3);
        assertThat(stored).as("what the append returned: the entries it committed").isEqualTo(log.subList(1, 3));
    }

    @Test
    void should_report_the_stored_entries_once_when_the_commit_reply_of_a_keyed_append_is_lost() {
        proxy.cutAfterNextCommit();
        List<Entry> stored = appendOrNull(List.of(NewEntry.of(UserMessage.from("q"))), "request-1");

        assertThat(proxy.cut()).isTrue();
        List<Entry> log = store.read("s", 0, 10);
        assertThat(log).hasSize(1);
        assertThat(stored).isEqualTo(log);
        assertThat(store.append("s", List.of(NewEntry.of(UserMessage.from("q"))), "request-1")).isEqualTo(log);
    }

    @Test
    void should_report_success_when_the_commit_reply_of_a_compare_and_set_is_lost() {
        store.append("s", List.of(NewEntry.of(UserMessage.from("q"))));
        SessionState first = store.compareAndSetState("s", 0, SessionState.EMPTY.withSystemMessage(
                SystemMessage.from("v1"))).orElseThrow();

        proxy.cutAfterNextCommit();
        Optional<SessionState> set;
        try {
            set = store.compareAndSetState("s", first.version(),
                    first.withSystemMessage(SystemMessage.from("v2")));
        } catch (StoreException e) {
            set = null;
        }

        assertThat(proxy.cut()).isTrue();
        SessionState now = store.state("s");
        assertThat(now.version()).as("the compare-and-set committed").isEqualTo(2);
        assertThat(set).as("what compare-and-set reported: the state it committed").isEqualTo(Optional.of(now));
    }

    private List<Entry> appendOrNull(List<NewEntry> entries, String key) {
        try {
            return store.append("s", entries, key);
        } catch (StoreException e) {
            return null; // reported as failed: then nothing of it may be visible
        }
    }

    /** A loopback TCP proxy that, when armed, drops the server's answer to the next COMMIT and closes both sides. */
    static final class CommitCuttingProxy implements AutoCloseable {
        private static final byte[] COMMIT = "COMMIT".getBytes(StandardCharsets.US_ASCII);
        private final ServerSocket server;
        private final String host;
        private final int port;
        private final AtomicBoolean armed = new AtomicBoolean();
        private final AtomicBoolean cut = new AtomicBoolean();

        CommitCuttingProxy(String jdbcUrl) throws IOException {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("//([^:/]+):(\\d+)/").matcher(jdbcUrl);
            if (!m.find()) {
                throw new IllegalArgumentException(jdbcUrl);
            }
            host = m.group(1);
            port = Integer.parseInt(m.group(2));
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(this::accept, "proxy-accept");
            accept.setDaemon(true);
            accept.start();
        }

        String jdbcUrl(String url) {
            // prepareThreshold=0: every statement goes out with its text (a named server-side statement would hide "COMMIT")
            String proxied = url.replaceFirst("//[^:/]+:\\d+/", "//127.0.0.1:" + server.getLocalPort() + "/");
            return proxied + (proxied.contains("?") ? "&" : "?") + "prepareThreshold=0&sslmode=disable";
        }

        void cutAfterNextCommit() {
            cut.set(false);
            armed.set(true);
        }

        boolean cut() {
            return cut.get();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Socket backend = new Socket(host, port);
                    AtomicBoolean commitSent = new AtomicBoolean();
                    pump(client, backend, commitSent, true);
                    pump(backend, client, commitSent, false);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pump(Socket from, Socket to, AtomicBoolean commitSent, boolean toServer) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[65536];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        if (toServer) {
                            if (armed.get() && contains(buffer, n, COMMIT) && armed.compareAndSet(true, false)) {
                                commitSent.set(true);
                            }
                        } else if (commitSent.get()) {
                            // the server answered the COMMIT: it happened; the client never hears of it
                            cut.set(true);
                            from.close();
                            to.close();
                            return;
                        }
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                } catch (IOException e) {
                    // one side closed
                } finally {
                    try {
                        from.close();
                        to.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                }
            }, "proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        private static boolean contains(byte[] buffer, int length, byte[] needle) {
            outer:
            for (int i = 0; i + needle.length <= length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (buffer[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
