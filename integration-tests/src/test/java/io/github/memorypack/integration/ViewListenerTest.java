package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link MemoryListener#onView} is told once per {@code messages()} call and once per {@code set}, for every strategy. */
class ViewListenerTest {

    static Stream<Function<MemoryListener, ChatMemory>> memories() {
        return Stream.of(
                l -> BufferChatMemory.builder().listener(l).build(),
                l -> WindowChatMemory.builder().maxMessages(10).listener(l).build(),
                l -> SummaryChatMemory.builder().summarizer(Summarizer.extractive()).listener(l).build(),
                l -> SummaryBufferChatMemory.builder().summarizer(Summarizer.extractive()).maxBufferTokens(1_000)
                        .listener(l).build());
    }

    @ParameterizedTest
    @MethodSource("memories")
    void should_report_one_view_per_read_when_messages_and_set_are_called(Function<MemoryListener, ChatMemory> factory) {
        // given
        List<MemoryListener.ViewShown> views = new ArrayList<>();
        ChatMemory memory = factory.apply(new MemoryListener() {
            @Override
            public void onView(ViewShown view) {
                views.add(view);
            }
        });
        memory.add(UserMessage.from("Hi, I'm Ada."));
        memory.add(AiMessage.from("Hello Ada."));

        // when
        List<ChatMessage> shown = memory.messages();
        memory.set(shown);

        // then
        assertThat(views).hasSize(2);
        assertThat(views).allSatisfy(v -> assertThat(v.messages()).isEqualTo(2));
    }
}
