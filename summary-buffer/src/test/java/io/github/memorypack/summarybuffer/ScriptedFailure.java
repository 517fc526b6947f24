package io.github.memorypack.summarybuffer;

import dev.langchain4j.exception.TimeoutException;
import io.github.memorypack.core.SummarizationException.Reason;
import io.github.memorypack.core.SummarizationException;
import java.util.function.Supplier;

/** The ways a summarizer can fail, each as a scripted answer with the reason a memory must report. */
public enum ScriptedFailure {
    THROWS(() -> {
        throw new IllegalStateException("model down");
    }, Reason.FAILED),
    TIMES_OUT(() -> {
        throw new TimeoutException("read timed out");
    }, Reason.FAILED),
    EMPTY(() -> "  ", Reason.EMPTY),
    NULL(() -> null, Reason.EMPTY),
    OVER_LONG(() -> "word ".repeat(400), Reason.TOO_LONG),
    TYPED(() -> {
        throw new SummarizationException(Reason.TOO_LONG, 3, "too long three times");
    }, Reason.TOO_LONG);

    public final Supplier<String> answer;
    public final Reason reason;

    ScriptedFailure(Supplier<String> answer, Reason reason) {
        this.answer = answer;
        this.reason = reason;
    }
}
