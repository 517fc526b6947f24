package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.CustomMessage;
import io.github.memorypack.core.file.FileSessionStore;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A custom message goes into a store only if every attribute comes back from it as it went in. */
class NewEntryTest {

    @TempDir
    Path folder;

    @Test
    void should_refuse_before_any_store_when_a_custom_attribute_would_not_come_back_as_it_is() {
        List<Object> refused = Arrays.asList(42L, 1.5f, 'c', new BigDecimal("1.10"), new byte[] {1}, Double.NaN,
                Double.POSITIVE_INFINITY, Instant.EPOCH, new Object(), (short) 3, List.of(1, 2L),
                Map.of("nested", Map.of("deeper", 7L)), Map.of(1, "a non-String key"));
        for (Object value : refused) {
            CustomMessage message = new CustomMessage(Map.of("v", value));
            assertThatThrownBy(() -> NewEntry.of(message)).as("attribute %s", value)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CustomMessage attribute 'v'");
        }
        assertThatThrownBy(() -> NewEntry.of(new CustomMessage(Map.of("v", Map.of("nested", List.of("ok", 7L))))))
                .hasMessageContaining("'v'['nested'][1]").hasMessageContaining("java.lang.Long");
    }

    @Test
    void should_round_trip_every_json_kind_of_custom_attribute_through_a_file_store_after_reopen() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("list", new ArrayList<>(List.of("a", 1, 2.5, true)));
        nested.put("none", null);
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("text", "ünïcödé \uD83D\uDE00");
        attributes.put("int", Integer.MIN_VALUE);
        attributes.put("double", -0.125);
        attributes.put("flag", false);
        attributes.put("map", nested);
        CustomMessage message = new CustomMessage(attributes);

        FileSessionStore.of(folder).append("s", List.of(NewEntry.of(message)));

        assertThat(FileSessionStore.of(folder).read("s", 0, 1).get(0).message()).isEqualTo(message);
    }
}
