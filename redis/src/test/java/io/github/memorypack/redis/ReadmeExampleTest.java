package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/** The example from redis/README.md, compiled and run against the test server. */
class ReadmeExampleTest {

    @Test
    void should_run_the_readme_example_when_redis_is_up() {
        String redisUrl = TestRedis.standaloneUri();

        // --- README example starts
        try (RedisSessionStore store = RedisSessionStore.builder()
                .uri(redisUrl)                        // or .host("redis").port(6379), or .client(jedisPooled)
                .keyPrefix("my-app:chat:")
                .ttl(Duration.ofDays(7))              // a session expires 7 days after its last write
                .connectTimeout(Duration.ofSeconds(2))
                .socketTimeout(Duration.ofSeconds(2))
                .build()) {

            // every Memory Pack memory takes the store (LangChain4j's own memories too, as a ChatMemoryStore)
            ChatMemory memory = WindowChatMemory.builder().id("user-42").chatMemoryStore(store).maxMessages(20).build();
            memory.add(UserMessage.from("Hi, I'm Ada."));
            // --- README example ends

            assertThat(store.getMessages("user-42")).containsExactly(UserMessage.from("Hi, I'm Ada."));
            assertThat(store.readLast("user-42", 1).get(0).index()).isZero();
            store.delete("user-42");
        }
    }

    @Test
    void should_run_the_readme_cluster_example_when_the_cluster_is_up() {
        Set<HostAndPort> seedNodes = TestRedis.clusterSeeds();

        // --- README cluster example starts
        try (RedisSessionStore store = RedisSessionStore.builder()
                .clusterNodes(seedNodes)                   // any nodes of the cluster; the rest is discovered
                .socketTimeout(Duration.ofMillis(500))
                .retryDuration(Duration.ofSeconds(20))     // ride out a failover: > cluster-node-timeout + ~3 s
                .waitForReplicas(1, Duration.ofMillis(500)) // acknowledge a write once a replica has it
                .build()) {

            ChatMemory memory = WindowChatMemory.builder().id("user-42").chatMemoryStore(store).maxMessages(20).build();
            memory.add(UserMessage.from("Hi, I'm Ada."));
            // --- README cluster example ends

            assertThat(store.getMessages("user-42")).containsExactly(UserMessage.from("Hi, I'm Ada."));
            store.delete("user-42");
        }
    }
}
