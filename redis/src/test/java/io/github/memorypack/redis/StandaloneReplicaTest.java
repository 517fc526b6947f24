package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code waitForReplicas} on a standalone primary (a {@code JedisPooled}): without a replica every
 * write is refused after the retry budget — applied once on the primary however often it was
 * retried — and once a replica is attached, writes are acknowledged again.
 */
class StandaloneReplicaTest {

    @Test
    void should_refuse_writes_once_applied_then_acknowledge_them_when_a_replica_is_attached() {
        try (RedisProcess primary = RedisProcess.start();
             RedisSessionStore waiting = RedisSessionStore.builder().uri(primary.uri())
                     .waitForReplicas(1, Duration.ofMillis(50)).retryDuration(Duration.ofMillis(400)).build();
             RedisSessionStore plain = RedisSessionStore.builder().uri(primary.uri()).build()) {
            // when: no replica
            assertThatThrownBy(() -> waiting.append("s", List.of(NewEntry.of(UserMessage.from("unconfirmed")))))
                    .isInstanceOfSatisfying(RedisUnavailableException.class,
                            e -> assertThat(e.attempts()).isGreaterThan(1))
                    .hasMessageContaining("WAIT: 0 of 1 replicas");
            assertThatThrownBy(() -> waiting.compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("a", "b"))))
                    .isInstanceOf(RedisUnavailableException.class);

            // then: each write is on the primary once, though every retry sent it again
            assertThat(AppendLoad.texts(plain.read("s", 0, 10))).containsExactly("unconfirmed");
            assertThat(plain.state("s").version()).isEqualTo(1);

            // and with a replica attached, writes are acknowledged
            try (RedisProcess replica = RedisProcess.start("--replicaof", "127.0.0.1", Integer.toString(primary.port()))) {
                assertThat(waiting.append("s", List.of(NewEntry.of(UserMessage.from("confirmed"))))).hasSize(1);
                assertThat(waiting.compareAndSetState("s", 1, SessionState.EMPTY)).isPresent();
                try (RedisSessionStore onReplica = RedisSessionStore.builder().uri(replica.uri()).build()) {
                    assertThat(AppendLoad.texts(onReplica.read("s", 0, 10))).containsExactly("unconfirmed", "confirmed");
                }
            }
        }
    }
}
