package io.github.memorypack.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A separate JVM appending to one session: {@code <jdbcUrl> <tablePrefix> <sessionId> <writer> <appends>}.
 * Prints "ready", waits for a line on stdin (so all processes start together), appends
 * {@code "<writer>:<i>"} for i = 0..appends-1 (each under its own idempotency key), prints "done".
 */
public final class AppendWorker {

    private AppendWorker() {
    }

    public static void main(String[] args) throws Exception {
        String writer = args[3];
        int appends = Integer.parseInt(args[4]);
        try (HikariDataSource pool = TestPostgres.pool(args[0], 2, Duration.ofSeconds(30))) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(args[1]).build();
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            for (int i = 0; i < appends; i++) {
                store.append(args[2], List.of(NewEntry.of(UserMessage.from(writer + ":" + i))), writer + "/" + i);
            }
        }
        System.out.println("done");
    }
}
