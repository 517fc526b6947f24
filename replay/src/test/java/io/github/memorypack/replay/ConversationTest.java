package io.github.memorypack.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConversationTest {

    @Test
    void should_have_300_turns_sittings_and_probes_last_when_built_in_script_is_loaded() {
        // when
        Conversation conversation = Conversation.builtIn();

        // then
        List<Conversation.Turn> turns = conversation.turns();
        assertThat(turns).hasSizeGreaterThanOrEqualTo(300);
        assertThat(conversation.sittings()).hasSizeGreaterThan(1);
        assertThat(turns.subList(turns.size() - 2, turns.size())).allMatch(Conversation.Turn::isProbe);
        assertThat(turns.subList(0, turns.size() - 2)).noneMatch(Conversation.Turn::isProbe);
        String early = turns.subList(0, 5).stream().map(Conversation.Turn::user).reduce("", String::concat);
        assertThat(conversation.facts()).containsExactly("Ana Ribeiro", "Porto", "1200 euros", "March 14")
                .allMatch(early::contains);
    }

    @Test
    void should_keep_probes_at_the_end_when_shortened() {
        // when
        Conversation shortened = Conversation.builtIn().firstTurns(10);

        // then
        List<Conversation.Turn> turns = shortened.turns();
        assertThat(turns).hasSize(12);
        assertThat(turns.subList(0, 10)).noneMatch(Conversation.Turn::isProbe);
        assertThat(turns.subList(10, 12)).allMatch(Conversation.Turn::isProbe);
        assertThat(shortened.facts()).hasSize(4);
    }

    @Test
    void should_split_sittings_and_attach_facts_when_parsing() {
        // given
        String text = """
                # comment
                U: I am Bo.
                A: Hi Bo.
                ## later
                U: Who am I?
                A: Bo.
                F: Bo | nobody else
                """;

        // when
        Conversation conversation = Conversation.parse("test", new StringReader(text));

        // then
        assertThat(conversation.sittings()).extracting(Conversation.Sitting::title).containsExactly("Sitting 1", "later");
        assertThat(conversation.turns().get(1).facts()).containsExactly("Bo", "nobody else");
    }

    @Test
    void should_reject_with_line_number_when_a_line_is_malformed() {
        assertThatThrownBy(() -> Conversation.parse("bad", new StringReader("U: hi\nX: what\n")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad:2");
        assertThatThrownBy(() -> Conversation.parse("open", new StringReader("U: hi\n")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no 'A: ' answer");
        assertThatThrownBy(() -> Conversation.parse("empty", new StringReader("# nothing\n")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no turns");
    }
}
