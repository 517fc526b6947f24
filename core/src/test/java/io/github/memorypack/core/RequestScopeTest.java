package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestScopeTest {

    @Test
    void should_have_no_request_when_outside_a_scope() {
        assertThat(RequestScope.active()).isNull();
        assertThat(RequestScope.currentRequestId()).isEmpty();
        assertThat(RequestScope.activeOrThread().nextKey("s")).isNull();
    }

    @Test
    void should_number_keys_per_session_within_one_attempt_when_inside_a_scope() {
        // when
        List<String> keys = RequestScope.call("r1", () -> {
            RequestScope scope = RequestScope.active();
            return List.of(scope.nextKey("a"), scope.nextKey("b"), scope.nextKey("a"), scope.attemptId());
        });

        // then
        String attempt = keys.get(3);
        assertThat(keys.subList(0, 3)).containsExactly("r1#" + attempt + "#0", "r1#" + attempt + "#0",
                "r1#" + attempt + "#1");
    }

    @Test
    void should_start_a_new_attempt_when_the_same_request_runs_again() {
        String first = RequestScope.call("r", () -> RequestScope.active().attemptId());
        String second = RequestScope.call("r", () -> RequestScope.active().attemptId());
        assertThat(first).isNotEqualTo(second);
    }

    @Test
    void should_restore_outer_scope_when_inner_scope_ends() {
        // given
        List<String> seen = new ArrayList<>();

        // when
        RequestScope.run("outer", () -> {
            seen.add(RequestScope.currentRequestId().orElseThrow());
            RequestScope.run("inner", () -> seen.add(RequestScope.currentRequestId().orElseThrow()));
            seen.add(RequestScope.currentRequestId().orElseThrow());
        });

        // then
        assertThat(seen).containsExactly("outer", "inner", "outer");
        assertThat(RequestScope.currentRequestId()).isEmpty();
    }

    @Test
    void should_reject_request_id_when_null_blank_or_too_long() {
        assertThatThrownBy(() -> RequestScope.run(" ", () -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RequestScope.run(null, () -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RequestScope.run("x".repeat(201), () -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
