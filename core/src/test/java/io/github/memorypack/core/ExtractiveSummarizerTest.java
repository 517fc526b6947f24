package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExtractiveSummarizerTest {

    private static List<ChatMessage> smallTalk(int turns) {
        List<ChatMessage> messages = new ArrayList<>();
        for (int i = 0; i < turns; i++) {
            messages.add(UserMessage.from("ok thanks"));
            messages.add(AiMessage.from("You are welcome, happy to help with that."));
        }
        return messages;
    }

    @Test
    void should_keep_planted_facts_over_small_talk_when_cap_is_tight() {
        // given
        List<ChatMessage> messages = new ArrayList<>(smallTalk(5));
        messages.add(UserMessage.from("My name is Ana Ribeiro and I live in Porto."));
        messages.add(AiMessage.from("Got it."));
        messages.add(UserMessage.from("I prefer window seats and my budget is 1200 euros."));
        messages.addAll(smallTalk(5));
        Summarizer summarizer = Summarizer.extractiveBuilder().maxSummaryTokens(40).build();

        // when
        String summary = summarizer.summarize("", messages);

        // then
        assertThat(summary).contains("- User: My name is Ana Ribeiro and I live in Porto.")
                .contains("- User: I prefer window seats and my budget is 1200 euros.")
                .doesNotContain("ok thanks");
        assertThat(Tokenizers.o200k().estimateTokenCountInText(summary)).isLessThanOrEqualTo(40);
    }

    @Test
    void should_keep_earlier_facts_from_previous_summary_when_new_messages_are_chatter() {
        // given
        Summarizer summarizer = Summarizer.extractiveBuilder().maxSummaryTokens(60).build();
        String first = summarizer.summarize("", List.of(UserMessage.from("My name is Ana and I was born in 1987."),
                AiMessage.from("Thanks, Ana.")));

        // when
        String second = summarizer.summarize(first, smallTalk(20));

        // then
        assertThat(second).contains("- User: My name is Ana and I was born in 1987.");
        assertThat(second.lines().filter(l -> l.equals("- User: My name is Ana and I was born in 1987."))).hasSize(1);
    }

    @Test
    void should_return_same_summary_when_run_twice_on_same_input() {
        // given
        List<ChatMessage> messages = new ArrayList<>(smallTalk(3));
        messages.add(UserMessage.from("We decided to ship version 2.4 on March 3."));

        // when / then
        assertThat(Summarizer.extractive().summarize("- User: I live in Lyon.", messages))
                .isEqualTo(Summarizer.extractive().summarize("- User: I live in Lyon.", messages));
    }

    @Test
    void should_fail_with_empty_when_no_sentence_fits_in_cap() {
        // given
        Summarizer summarizer = Summarizer.extractiveBuilder().maxSummaryTokens(2).build();

        // when / then
        assertThatThrownBy(() -> summarizer.summarize("", List.of(UserMessage.from("My name is Ana and I live in Porto."))))
                .isInstanceOfSatisfying(SummarizationException.class,
                        e -> assertThat(e.reason()).isEqualTo(SummarizationException.Reason.EMPTY));
    }

    @Test
    void should_reject_cap_below_one_when_building() {
        assertThatThrownBy(() -> Summarizer.extractiveBuilder().maxSummaryTokens(0).build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
