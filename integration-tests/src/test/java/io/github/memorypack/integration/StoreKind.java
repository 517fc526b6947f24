package io.github.memorypack.integration;

import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.memorymd.MemoryMdSessionStore;
import io.github.memorypack.redis.RedisSessionStore;
import java.nio.file.Path;
import java.util.UUID;

/** The stores every LangChain4j path is run on. Each {@link #open} gives a new, empty store. */
enum StoreKind {

    IN_MEMORY {
        @Override
        SessionStore open(Path dir) {
            return InMemorySessionStore.create();
        }
    },
    FILE {
        @Override
        SessionStore open(Path dir) {
            return FileSessionStore.of(dir.resolve("file-store"));
        }
    },
    REDIS {
        @Override
        SessionStore open(Path dir) {
            return RedisSessionStore.builder().uri(TestRedis.uri()).keyPrefix("it:" + UUID.randomUUID() + ":").build();
        }
    },
    MEMORY_MD {
        @Override
        SessionStore open(Path dir) {
            return MemoryMdSessionStore.builder().directory(dir.resolve("memory-md"))
                    .durability(MemoryMdSessionStore.Durability.OS_BUFFERED).build();
        }
    },
    /** A LangChain4j {@code ChatMemoryStore} the application already has, adapted: the one-line switch. */
    LANGCHAIN4J_STORE {
        @Override
        SessionStore open(Path dir) {
            return SessionStore.of(new InMemoryChatMemoryStore());
        }
    };

    /** A new, empty store of this kind; file stores live under {@code dir} (a test's temporary folder). */
    abstract SessionStore open(Path dir);

    /** Closes {@code store} if it holds resources (files, connections). */
    static void close(SessionStore store) throws Exception {
        if (store instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }
}
