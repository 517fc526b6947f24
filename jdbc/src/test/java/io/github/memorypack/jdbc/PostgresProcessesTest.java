package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The process rows on a real PostgreSQL (see {@link TestPostgres}). */
class PostgresProcessesTest extends JdbcProcessesTest {

    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        pool = TestPostgres.pool(8);
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
        return "TEXT";
    }

    @Test
    void should_make_the_earlier_tables_with_the_text_type_the_store_itself_uses_on_postgres() {
        assertThat(messageColumnType()).isEqualToIgnoringCase(text()).isEqualToIgnoringCase("text");
    }
}
