package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetentionTest {

    @Test
    void should_never_trim_when_policy_keeps_all() {
        assertThat(Retention.keepAll().trimBefore(0, 1_000_000)).isEqualTo(0);
        assertThat(Retention.keepAll().trims()).isFalse();
    }

    @Test
    void should_trim_in_batches_when_policy_keeps_last_entries() {
        // given
        Retention keep100 = Retention.keepLast(100);

        // then: no trim until 100 + 25 entries, then back to 100
        assertThat(keep100.trimBefore(0, 124)).isEqualTo(0);
        assertThat(keep100.trimBefore(0, 125)).isEqualTo(25);
        assertThat(keep100.trimBefore(25, 149)).isEqualTo(25);
        assertThat(Retention.keepLast(1).trimBefore(0, 9)).isEqualTo(8);
    }

    @Test
    void should_reject_bound_when_it_is_below_one() {
        assertThatThrownBy(() -> Retention.keepLast(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
