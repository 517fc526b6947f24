package io.github.memorypack.summarybuffer;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.Summarizer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/** Test summarizer: records every call, answers from a script, then with a short default summary. */
public final class RecordingSummarizer implements Summarizer {

    public record Call(String previousSummary, List<ChatMessage> messages) {
    }

    private final List<Call> calls = new ArrayList<>();
    private final Deque<Supplier<String>> script = new ArrayDeque<>();

    /** The next call answers with {@code answer} (may throw, may return null or anything). */
    public synchronized RecordingSummarizer then(Supplier<String> answer) {
        script.addLast(answer);
        return this;
    }

    @Override
    public String summarize(String previousSummary, List<ChatMessage> messages) {
        Supplier<String> answer;
        int n;
        synchronized (this) {
            calls.add(new Call(previousSummary, List.copyOf(messages)));
            n = calls.size();
            answer = script.pollFirst();
        }
        return answer != null ? answer.get() : "summary " + n + " of " + messages.size() + " more messages";
    }

    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }
}
