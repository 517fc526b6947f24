package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The database reason quoted in a JDBC store's errors, for what the real databases of
 * {@link JdbcSessionStoreBehaviourTest} cannot be made to say: a reason over the length limit, and a
 * batch failure reported without the server's own exception chained to it.
 */
class JdbcErrorReasonTest {

    @Test
    void should_cut_a_long_reason_at_the_limit_and_never_inside_a_character_when_the_driver_says_a_lot() {
        // given: a reason whose cut would fall between the two halves of an emoji
        String text = "x".repeat(Transactions.MAX_REASON_LENGTH - 2) + "\uD83D\uDE00" + "y".repeat(500);

        // when
        String reason = Transactions.reason(new SQLException(text, "XX000"));

        // then
        assertThat(reason).hasSizeLessThanOrEqualTo(Transactions.MAX_REASON_LENGTH).endsWith("x…")
                .doesNotContain("y");
    }

    @Test
    void should_quote_what_follows_was_aborted_when_a_batch_failure_has_no_next_exception() {
        // given: a batch failure as PostgreSQL's driver words it, with the statement and its values
        BatchUpdateException batch = new BatchUpdateException("Batch entry 0 INSERT INTO t (message) VALUES ('"
                + "secret text".repeat(100) + "') was aborted: ERROR: value too long for type character varying(8)\n"
                + "  Call getNextException to see other errors in the batch.", "22001", new int[0]);

        // when
        String reason = Transactions.reason(batch);

        // then
        assertThat(reason).isEqualTo("value too long for type character varying(8)");
    }

    @Test
    void should_name_the_exception_when_the_driver_gives_no_message() {
        assertThat(Transactions.reason(new SQLException((String) null))).isEqualTo("SQLException");
    }
}
