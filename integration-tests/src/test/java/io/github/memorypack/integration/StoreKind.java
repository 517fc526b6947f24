package io.github.memorypack.integration;

import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.jdbc.JdbcSessionStore;
import io.github.memorypack.memorymd.MemoryMdSessionStore;
import io.github.memorypack.redis.RedisSessionStore;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
            return MemoryOptions.sessionStore(new InMemoryChatMemoryStore());
        }
    },
    /** PostgreSQL through {@code JdbcSessionStore} (tables of their own per store, dropped when it is closed). */
    JDBC {
        @Override
        SessionStore open(Path dir) {
            String prefix = TestPostgres.freshPrefix();
            JdbcSessionStore store = JdbcSessionStore.builder(TestPostgres.pool()).tablePrefix(prefix).build();
            store.createSchema();
            JDBC_PREFIXES.put(store, prefix);
            return store;
        }
    };

    /** The table prefix of each JDBC store opened and not closed yet. */
    private static final Map<SessionStore, String> JDBC_PREFIXES = Collections.synchronizedMap(new IdentityHashMap<>());

    /** The stores every LangChain4j path test runs on. */
    static final List<StoreKind> PATHS = List.of(IN_MEMORY, FILE, REDIS, MEMORY_MD, LANGCHAIN4J_STORE, JDBC);
    /** The shared stores two requests on one session are tried on: in-process, file, Redis, JDBC. */
    static final List<StoreKind> SHARED = List.of(IN_MEMORY, FILE, REDIS, JDBC);

    /** A new, empty store of this kind; file stores live under {@code dir} (a test's temporary folder). */
    abstract SessionStore open(Path dir);

    /** Closes {@code store} if it holds resources (files, connections, tables). */
    static void close(SessionStore store) throws Exception {
        String prefix = JDBC_PREFIXES.remove(store);
        if (prefix != null) {
            TestPostgres.dropTables(prefix);
        } else if (store instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

}
