package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The process rows on an in-memory H2 database. */
class H2ProcessesTest extends JdbcProcessesTest {

    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:processes-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        config.setMaximumPoolSize(8);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @Override
    DataSource dataSource() {
        return pool;
    }

    @Override
    String text() {
        return "CHARACTER LARGE OBJECT";
    }

    @Test
    void should_make_the_earlier_tables_with_the_text_type_the_store_itself_uses_on_h2() {
        assertThat(messageColumnType()).isEqualToIgnoringCase(text()).isEqualToIgnoringCase("CHARACTER LARGE OBJECT");
    }
}
