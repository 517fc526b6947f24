package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordsTest {

    @Test
    void should_equal_and_hash_like_a_map_of_the_same_entries_when_tags_are_built() {
        // when
        Map<String, String> tags = EntryTags.tags("t0", "t1", "r", "a");

        // then
        Map<String, String> expected = Map.of(EntryTags.AFTER, "t0", EntryTags.TURN, "t1", EntryTags.REQUEST, "r",
                EntryTags.ATTEMPT, "a");
        assertThat(tags).isEqualTo(expected);
        assertThat(expected).isEqualTo(tags);
        assertThat(tags.hashCode()).isEqualTo(expected.hashCode());
        assertThat(tags).hasSize(4).containsExactly(Map.entry(EntryTags.AFTER, "t0"), Map.entry(EntryTags.TURN, "t1"),
                Map.entry(EntryTags.REQUEST, "r"), Map.entry(EntryTags.ATTEMPT, "a"));
        assertThat(tags.get(EntryTags.TURN)).isEqualTo("t1");
        assertThat(tags.get("other")).isNull();
        assertThat(tags.get(null)).isNull();
        assertThat(tags.containsKey(new String(EntryTags.REQUEST.toCharArray()))).isTrue();
    }

    @Test
    void should_leave_out_null_tags_and_an_attempt_without_a_request_when_tags_are_built() {
        // when
        Map<String, String> turnOnly = EntryTags.tags(null, "t1", null, "a");
        Map<String, String> none = EntryTags.tags(null, null, null, "a");

        // then
        assertThat(turnOnly).isEqualTo(Map.of(EntryTags.TURN, "t1")).hasSize(1);
        assertThat(turnOnly.containsKey(EntryTags.ATTEMPT)).isFalse();
        assertThat(turnOnly.hashCode()).isEqualTo(Map.of(EntryTags.TURN, "t1").hashCode());
        assertThat(none).isEmpty();
    }

    @Test
    void should_refuse_every_change_when_tags_are_built() {
        // given
        Map<String, String> tags = EntryTags.tags("t0", "t1", null, null);

        // then
        assertThatThrownBy(() -> tags.put(EntryTags.TURN, "x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> tags.remove(EntryTags.TURN)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> tags.remove("other")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(tags::clear).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> tags.entrySet().iterator().next().setValue("x"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> tags.replaceAll((k, v) -> v + "x")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(tags).isEqualTo(Map.of(EntryTags.AFTER, "t0", EntryTags.TURN, "t1"));
    }

    @Test
    void should_keep_tags_as_they_are_when_a_new_entry_carries_them() {
        // given
        Map<String, String> tags = EntryTags.tags(null, "t1", "r", "a");
        Map<String, String> plain = new HashMap<>(tags);

        // when
        NewEntry tagged = NewEntry.of(UserMessage.from("hi"), 1, tags);
        NewEntry copied = NewEntry.of(UserMessage.from("hi"), 1, plain);
        plain.clear();

        // then: tags are immutable, so they need no copy; any other map is still copied
        assertThat(tagged.metadata()).isSameAs(tags);
        assertThat(copied.metadata()).isEqualTo(tags);
    }

    @Test
    void should_round_trip_through_a_stored_line_when_an_entry_carries_tags() {
        // given
        InMemorySessionStore store = InMemorySessionStore.create();
        store.append("s", List.of(NewEntry.of(UserMessage.from("hi"), 5, EntryTags.tags("t0", "t1", "r", "a"))), "k");
        Entry stored = store.read("s", 0, 1).get(0);

        // when
        Entry decoded = EntryCodec.decodeEntry(EntryCodec.encodeEntry(stored));

        // then
        assertThat(decoded).isEqualTo(stored);
        assertThat(stored).isEqualTo(decoded);
        assertThat(decoded.hashCode()).isEqualTo(stored.hashCode());
        assertThat(decoded.metadata()).isEqualTo(Map.of(EntryTags.AFTER, "t0", EntryTags.TURN, "t1",
                EntryTags.REQUEST, "r", EntryTags.ATTEMPT, "a"));
    }
}
