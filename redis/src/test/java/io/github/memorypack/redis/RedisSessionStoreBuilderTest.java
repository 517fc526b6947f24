package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.StoreException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

class RedisSessionStoreBuilderTest {

    @Test
    void should_refuse_connection_options_when_a_client_is_given() {
        try (JedisPooled client = TestRedis.standaloneClient()) {
            assertThatThrownBy(() -> RedisSessionStore.builder().client(client).password("x").build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("client");
            assertThatThrownBy(() -> RedisSessionStore.builder().client(client).socketTimeout(Duration.ofSeconds(1))
                    .build()).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void should_refuse_two_targets_when_host_uri_and_cluster_are_mixed() {
        assertThatThrownBy(() -> RedisSessionStore.builder().host("a").uri("redis://b:1").build())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().port(1)
                .clusterNodes(Set.of(new HostAndPort("c", 2))).build())
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void should_reject_bad_values_when_building() {
        assertThatThrownBy(() -> RedisSessionStore.builder().keyPrefix(null).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().ttl(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().ttl(Duration.ofNanos(10)).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().connectTimeout(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().port(70_000).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().uri("http://host:6379").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().clusterNodes(Set.of()).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().clock(null).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_connect_with_host_port_and_timeouts_when_built_from_parts() {
        // given
        URI uri = URI.create(TestRedis.standaloneUri());
        try (RedisSessionStore store = RedisSessionStore.builder().host(uri.getHost()).port(uri.getPort())
                .connectTimeout(Duration.ofMillis(500)).socketTimeout(Duration.ofMillis(500))
                .keyPrefix(TestRedis.freshPrefix()).ttl(Duration.ofMinutes(5)).build()) {
            // when
            store.append("s", List.of(NewEntry.of(UserMessage.from("hi"))));

            // then
            assertThat(store.getMessages("s")).containsExactly(UserMessage.from("hi"));
            assertThat(store.ttl()).contains(Duration.ofMinutes(5));
            store.delete("s");
        }
    }

    @Test
    void should_retry_within_the_budget_then_throw_redis_unavailable_when_redis_is_unreachable() throws Exception {
        // given: a port nobody listens on
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (RedisSessionStore store = RedisSessionStore.builder().host("127.0.0.1").port(port)
                .connectTimeout(Duration.ofMillis(200)).retryAttempts(4).retryDuration(Duration.ofSeconds(5)).build()) {
            // when / then
            assertThatThrownBy(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("x")))))
                    .isInstanceOfSatisfying(RedisUnavailableException.class, e -> {
                        assertThat(e.attempts()).isEqualTo(4);
                        assertThat(e.elapsed()).isLessThan(Duration.ofSeconds(5));
                    })
                    .hasMessageContaining("append").hasMessageContaining("'s'").hasMessageContaining("4 attempts")
                    .hasCauseInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
            assertThatThrownBy(store::sessions).isInstanceOf(RedisUnavailableException.class);
            assertThatThrownBy(() -> store.state("s")).isInstanceOf(StoreException.class);
        }
        try (RedisSessionStore once = RedisSessionStore.builder().host("127.0.0.1").port(port)
                .connectTimeout(Duration.ofMillis(200)).retryAttempts(1).build()) {
            assertThatThrownBy(() -> once.nextIndex("s")).isInstanceOfSatisfying(RedisUnavailableException.class,
                    e -> assertThat(e.attempts()).isEqualTo(1));
        }
    }

    @Test
    void should_reject_bad_retry_replica_and_cluster_options_when_set() {
        assertThatThrownBy(() -> RedisSessionStore.builder().retryAttempts(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().retryDuration(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().waitForReplicas(-1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().waitForReplicas(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().deduplicationWindow(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().jedisClusterMaxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSessionStore.builder().jedisClusterMaxTotalRetriesDuration(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_refuse_conflicting_retry_replica_and_cluster_options_when_building() {
        assertThatThrownBy(() -> RedisSessionStore.builder().jedisClusterMaxAttempts(3).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("clusterNodes");
        assertThatThrownBy(() -> RedisSessionStore.builder().retryDuration(Duration.ofMinutes(2))
                .deduplicationWindow(Duration.ofMinutes(1)).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("deduplicationWindow");
        try (UnifiedJedis plain = new UnifiedJedis(HostAndPort.from(URI.create(TestRedis.standaloneUri()).getAuthority()))) {
            assertThatThrownBy(() -> RedisSessionStore.builder().client(plain).waitForReplicas(1, Duration.ofSeconds(1))
                    .build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("JedisPooled or JedisCluster");
        }
    }

    @Test
    void should_pass_the_password_through_when_the_server_requires_one() {
        try (RedisProcess secured = RedisProcess.start("--requirepass", "s3cret")) {
            // given
            List<NewEntry> hello = List.of(NewEntry.of(UserMessage.from("hello")));
            try (RedisSessionStore withPassword = RedisSessionStore.builder().host("127.0.0.1").port(secured.port())
                         .password("s3cret").build();
                 RedisSessionStore withUriPassword = RedisSessionStore.builder()
                         .uri("redis://:s3cret@127.0.0.1:" + secured.port() + "/0").build();
                 RedisSessionStore withoutPassword = RedisSessionStore.builder().host("127.0.0.1")
                         .port(secured.port()).build()) {
                // when
                withPassword.append("s", hello);

                // then
                assertThat(withUriPassword.getMessages("s")).containsExactly(UserMessage.from("hello"));
                assertThatThrownBy(() -> withoutPassword.append("s", hello)).isInstanceOf(StoreException.class);
            }
        }
    }

    @Test
    void should_not_close_a_given_client_when_the_store_is_closed() {
        try (JedisPooled client = TestRedis.standaloneClient()) {
            RedisSessionStore.builder().client(client).build().close();
            assertThat(client.ping()).isEqualTo("PONG");
        }
    }
}
