package io.github.memorypack.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MutableClockTest {

    private static final Instant T0 = Instant.parse("2026-05-06T07:08:09Z");

    @Test
    void should_stand_still_until_moved_when_read() {
        // given
        MutableClock clock = MutableClock.at(T0);

        // when
        Instant first = clock.instant();
        Instant second = clock.instant();
        clock.advance(Duration.ofMillis(1500));
        Instant advanced = clock.instant();
        clock.set(T0.minusSeconds(60));

        // then
        assertThat(first).isEqualTo(T0).isEqualTo(second);
        assertThat(advanced).isEqualTo(T0.plusMillis(1500));
        assertThat(clock.instant()).isEqualTo(T0.minusSeconds(60));
        assertThat(clock.millis()).isEqualTo(T0.minusSeconds(60).toEpochMilli());
    }

    @Test
    void should_refuse_other_zones_when_asked_for_one() {
        MutableClock clock = MutableClock.at(T0);

        assertThat(clock.withZone(ZoneOffset.UTC)).isSameAs(clock);
        assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
        assertThatThrownBy(() -> clock.withZone(ZoneId.of("Europe/Paris")))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
