package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import org.junit.jupiter.api.Test;

class EntryCodecTest {

    private static final String AWKWARD = "a\uD800b\uDC00c\u0000d\re\n\uD83D\uDE00f\uDBFF";

    @Test
    void should_round_trip_lone_surrogates_nul_and_cr_exactly_when_the_form_goes_through_utf8() {
        // given
        Entry entry = new Entry(3, "id-1", Instant.parse("2026-01-01T00:00:00Z"), 5, UserMessage.from(AWKWARD),
                Map.of("k", AWKWARD), "key");
        // when
        String line = EntryCodec.encodeEntry(entry);
        String throughUtf8 = new String(line.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        // then
        assertThat(line).doesNotContain("\n").doesNotContain("\r");
        assertThat(EntryCodec.decodeEntry(throughUtf8)).isEqualTo(entry);
    }

    @Test
    void should_round_trip_state_text_exactly_when_it_holds_lone_surrogates() {
        SessionState state = new SessionState(4, SystemMessage.from(AWKWARD), new Summary(AWKWARD, 3, 2,
                Instant.parse("2026-01-01T00:00:00Z")), Map.of("a", AWKWARD));
        String json = new String(EntryCodec.encodeState(state).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        assertThat(EntryCodec.decodeState(json)).isEqualTo(state);
    }

    @Property(tries = 300)
    void should_round_trip_any_text_when_encoded_and_sent_through_utf8(@ForAll @CharRange(from = Character.MIN_VALUE, to = Character.MAX_VALUE) String text) {
        AiMessage message = AiMessage.from(text.isEmpty() ? " " : text);
        String json = EntryCodec.encodeMessage(message);
        String throughUtf8 = new String(json.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        assertThat(EntryCodec.decodeMessage(throughUtf8)).isEqualTo(message);
    }

    @Test
    void should_give_the_crc32c_of_the_utf8_bytes_when_asked_for_a_checksum() {
        // CRC32C("123456789") = e3069283 (RFC 3720 check value)
        assertThat(EntryCodec.checksum("123456789")).isEqualTo("e3069283");
        assertThat(EntryCodec.checksum("")).isEqualTo("00000000");
    }
}
