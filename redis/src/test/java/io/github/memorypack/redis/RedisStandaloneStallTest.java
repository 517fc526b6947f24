package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A standalone server that stops answering (SIGSTOP: a GC-like stall, a full disk, a paused VM) for
 * longer than the socket timeout while 4 threads append without keys, then comes back: the store
 * retries with each call's write token, so nothing is stored twice, nothing acknowledged is lost, and
 * the same store works afterwards without a restart of the application.
 */
class RedisStandaloneStallTest {

    private static final Duration SOCKET_TIMEOUT = Duration.ofMillis(300);
    private static final Duration PAUSE = Duration.ofMillis(1_200);

    @Test
    @Tag("slow")
    void should_store_each_append_once_and_recover_when_the_server_stalls_past_the_socket_timeout()
            throws Exception {
        try (RedisProcess server = RedisProcess.start();
             RedisSessionStore store = RedisSessionStore.builder().uri(server.uri()).keyPrefix(TestRedis.freshPrefix())
                     .socketTimeout(SOCKET_TIMEOUT).connectTimeout(SOCKET_TIMEOUT)
                     .retryDuration(Duration.ofSeconds(20)).build()) {
            // given
            AppendLoad load = new AppendLoad(store, List.of("a", "b"), 4).start();
            try {
                load.awaitMore(100, Duration.ofSeconds(30));

                // when
                server.pause();
                try {
                    LockSupport.parkNanos(PAUSE.toNanos()); // the experiment's input: how long the server is frozen
                } finally {
                    server.resume();
                }
                load.awaitMore(100, Duration.ofSeconds(60));
            } finally {
                load.close();
            }

            // then
            assertThat(store.retries()).as("calls retried across the stall").isPositive();
            assertThat(load.errors()).isEmpty();
            load.assertEveryAcknowledgedAppendStoredOnceInOrder(store);
            assertThat(load.duplicates(store)).isEmpty();
        }
    }
}
