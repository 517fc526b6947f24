package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;

/** The startup check reads what real servers say about their append-only file, with CONFIG or without. */
class PersistenceCheckTest {

    @Test
    void should_tell_whether_the_server_keeps_an_append_only_file_when_config_is_allowed_or_renamed_away() {
        try (RedisProcess off = RedisProcess.start();
             RedisProcess on = RedisProcess.start("--appendonly", "yes");
             RedisProcess offWithoutConfig = RedisProcess.start("--rename-command", "CONFIG", "");
             RedisProcess onWithoutConfig = RedisProcess.start("--appendonly", "yes", "--rename-command", "CONFIG", "")) {
            assertThat(appendOnly(off)).isFalse();
            assertThat(appendOnly(on)).isTrue();
            assertThat(appendOnly(offWithoutConfig)).isFalse();
            assertThat(appendOnly(onWithoutConfig)).isTrue();
            // the store builds against each, warning (once) about the ones without an append-only file
            for (RedisProcess server : new RedisProcess[] {off, on, offWithoutConfig, onWithoutConfig}) {
                RedisSessionStore.builder().uri(server.uri()).build().close();
            }
        }
    }

    private static Boolean appendOnly(RedisProcess server) {
        try (Connection connection = new Connection("127.0.0.1", server.port())) {
            return PersistenceCheck.appendOnly(connection);
        }
    }
}
