package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestScopeTest {

    @Test
    void should_give_no_key_when_outside_a_scope() {
        assertThat(RequestScope.nextKey("s")).isNull();
        assertThat(RequestScope.currentRequestId()).isEmpty();
    }

    @Test
    void should_number_keys_per_session_when_inside_a_scope() {
        // when
        List<String> keys = RequestScope.call("r1", () -> List.of(RequestScope.nextKey("a"), RequestScope.nextKey("b"),
                RequestScope.nextKey("a")));

        // then
        assertThat(keys).containsExactly("r1#0", "r1#0", "r1#1");
    }

    @Test
    void should_restore_outer_scope_when_inner_scope_ends() {
        // given
        List<String> seen = new ArrayList<>();

        // when
        RequestScope.run("outer", () -> {
            seen.add(RequestScope.nextKey("s"));
            RequestScope.run("inner", () -> seen.add(RequestScope.nextKey("s")));
            seen.add(RequestScope.nextKey("s"));
        });

        // then
        assertThat(seen).containsExactly("outer#0", "inner#0", "outer#1");
        assertThat(RequestScope.currentRequestId()).isEmpty();
    }

    @Test
    void should_reject_request_id_when_blank_or_too_long() {
        assertThatThrownBy(() -> RequestScope.run(" ", () -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RequestScope.run("x".repeat(201), () -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
