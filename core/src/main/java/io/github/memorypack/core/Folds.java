package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.SummarizationException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Folding, for every strategy whose options have a summarizer: reads the unsummarized part of the
 * log, asks the {@link MemoryStrategy#turnsToFold strategy} how many of its oldest turns to fold, summarizes them into the running summary and
 * stores it with compare-and-set. The summary lives only in the session state, so a new memory on
 * the same store continues from it.
 *
 * <p>Rules: a fold covers a prefix of the unsummarized turns that are closed (an open turn, and
 * every turn after it, waits) and ends at a point of the log no later turn reaches back past; a
 * superseded attempt, a replaced entry, a record or a system-message entry is never summarized; each
 * summarizer call has a timeout; a summary that is thrown, {@code null}, blank, over the cap or late
 * changes nothing and is reported; a fold whose compare-and-set finds that another fold moved the
 * summary first is dropped; at most one fold per session runs at once in this process, and a turn
 * that finishes during a fold makes that fold look again when it is done; after k failures in a row
 * the next 2^(k-1) − 1 triggers are skipped (at most {@value #MAX_SKIPPED_TRIGGERS}).
 */
final class Folds {

    /** Most triggers skipped after repeated failures before the next attempt. */
    static final int MAX_SKIPPED_TRIGGERS = 31;

    private static final ConcurrentMap<FoldKey, Slot> RUNNING = new ConcurrentHashMap<>();
    // runs summarizer calls so each can time out; daemon threads, so a hung model never keeps the JVM up
    private static final ExecutorService CALLS = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "memory-pack-summarizer");
        thread.setDaemon(true);
        return thread;
    });

    private final SessionMemory memory;
    private final Summarizer summarizer;
    private final Duration timeout;
    private final Executor executor;
    private final java.time.Clock clock;
    private final int maxSummaryTokens;
    private final MemoryStrategy strategy;
    private int consecutiveFailures;
    private int triggersToSkip;

    Folds(SessionMemory memory, MemoryOptions options, MemoryStrategy strategy) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.summarizer = Objects.requireNonNull(options.summarizerOrNull(), "summarizer");
        this.timeout = options.summarizerTimeout();
        this.executor = options.foldExecutor();
        this.clock = options.clock();
        this.maxSummaryTokens = summaryCap(options.maxSummaryTokens(), summarizer);
        this.strategy = Objects.requireNonNull(strategy, "strategy");
    }

    /**
     * The summary cap set in the options, else the summarizer's own (the LLM one, the extractive one),
     * else {@value MemoryOptions#DEFAULT_MAX_SUMMARY_TOKENS}.
     */
    private static int summaryCap(Integer set, Summarizer summarizer) {
        if (set != null) {
            return set;
        }
        if (summarizer instanceof LlmSummarizer llm) {
            return llm.maxSummaryTokens();
        }
        if (summarizer instanceof ExtractiveSummarizer extractive) {
            return extractive.maxSummaryTokens();
        }
        return MemoryOptions.DEFAULT_MAX_SUMMARY_TOKENS;
    }

    private static long start(SessionState state) {
        return Dialogue.unsummarizedStart(state);
    }

    /**
     * Called when a turn finished: folds now (inline) or hands a fold to the executor (background),
     * unless failures asked to wait. When a fold of this session is already running, it is asked to
     * look again once it is done, so turns that finish meanwhile are not left unfolded.
     */
    void turnFinished() {
        if (!takeTrigger()) {
            memory.listener().onFoldSkipped(memory.sessionId(), memory.strategy());
            return;
        }
        Slot mine = new Slot();
        while (true) {
            Slot running = RUNNING.putIfAbsent(key(), mine);
            if (running == null) {
                break;
            }
            synchronized (running) {
                if (!running.done) {
                    running.again = true;
                    return;
                }
            }
            // that fold was finishing and has left the map: try to take the session again
        }
        if (executor == null) {
            foldWhileAsked(mine);
            return;
        }
        try {
            executor.execute(() -> foldWhileAsked(mine));
        } catch (RejectedExecutionException e) {
            release(mine);
            failed(Reason.FAILED, -1, -1, e);
        }
    }

    private void foldWhileAsked(Slot slot) {
        boolean ok = true;
        while (ok) {
            try {
                ok = fold();
            } catch (RuntimeException e) {
                failed(Reason.FAILED, -1, -1, e);
                ok = false;
            }
            synchronized (slot) {
                if (!ok || !slot.again) {
                    release(slot);
                    return;
                }
                slot.again = false;
            }
        }
    }

    private void release(Slot slot) {
        synchronized (slot) {
            slot.done = true;
            RUNNING.remove(key(), slot);
        }
    }

    /** One fold; false if it failed (and was reported). */
    private boolean fold() {
        SessionState state = memory.state();
        long from = start(state);
        // folds never depend on the thread they run on: no request scope hides an attempt here
        List<Entry> entries = memory.store().read(memory.sessionId(), from, Integer.MAX_VALUE);
        Dialogue dialogue = Dialogue.of(state, entries, true, memory.context(null));
        Summary previous = dialogue.summary; // none when the state's summary predates a clear
        int k = turnsToFold(StrategySession.forFold(memory, state, dialogue), dialogue);
        if (k <= 0) {
            return true;
        }
        long end = dialogue.cutAfter(k);
        if (end <= from) {
            return true;
        }
        List<ChatMessage> messages = new ArrayList<>();
        String previousText = previous == null ? "" : previous.text();
        // the summary's count was stored with it: an unchanged summary is never counted again
        int inputTokens = previous == null ? 0 : previous.tokenCount() >= 0 ? previous.tokenCount()
                : memory.rules().tokenizer().estimateTokenCountInText(previousText);
        Entry lastFolded = null;
        List<DialogueTurn> folded = new ArrayList<>(k + 1);
        if (dialogue.prelude != null) {
            folded.add(dialogue.prelude);
        }
        folded.addAll(dialogue.turns.subList(0, k));
        for (DialogueTurn turn : folded) {
            for (Entry entry : turn.entries()) {
                messages.add(entry.message());
                inputTokens += memory.rules().storedTokens(entry);
                if (lastFolded == null || entry.index() > lastFolded.index()) {
                    lastFolded = entry;
                }
            }
        }
        if (messages.isEmpty()) {
            return true;
        }
        long foldFrom = from;
        String text;
        long started = System.nanoTime();
        try {
            text = summarize(previousText, List.copyOf(messages));
        } catch (SummarizationException e) {
            failed(e.reason(), foldFrom, end, e);
            return false;
        } catch (RuntimeException e) {
            failed(Reason.FAILED, foldFrom, end, e);
            return false;
        }
        if (text == null || text.isBlank()) {
            failed(Reason.EMPTY, foldFrom, end, null);
            return false;
        }
        text = text.strip();
        int outputTokens = memory.rules().tokenizer().estimateTokenCountInText(text);
        if (outputTokens > maxSummaryTokens) {
            failed(Reason.TOO_LONG, foldFrom, end, null);
            return false;
        }
        Summary next = new Summary(text, end, outputTokens, clock.instant());
        long readUpTo = entries.get(entries.size() - 1).index();
        while (true) {
            SessionState now = memory.state();
            if (start(now) != from) {
                return true; // another fold (or a clear) moved the start first
            }
            if (!stillInLog(lastFolded) || rewrittenSince(readUpTo)) {
                return true; // the log was replaced or rewritten meanwhile: this summary describes messages that are gone
            }
            if (memory.store().compareAndSetState(memory.sessionId(), now.version(), now.withSummary(next)).isPresent()) {
                break;
            }
        }
        succeeded();
        memory.listener().onFold(new MemoryListener.Fold(memory.sessionId(), memory.strategy(), messages.size(),
                inputTokens, outputTokens, Duration.ofNanos(System.nanoTime() - started)));
        if (memory.accounting() != null) {
            memory.accounting().summarized(memory.sessionId(), inputTokens, outputTokens);
        }
        return true;
    }

    /** One summarizer call, bounded by the timeout: a hung model fails the fold, never the turn. */
    private String summarize(String previous, List<ChatMessage> messages) {
        if (summarizer instanceof ExtractiveSummarizer) {
            return summarizer.summarize(previous, messages); // pure CPU, bounded by its input: no thread hop
        }
        Future<String> call = CALLS.submit(() -> summarizer.summarize(previous, messages));
        try {
            return call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new SummarizationException(Reason.TIMED_OUT, 1,
                    "the summarizer did not answer within " + timeout, e);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new SummarizationException(Reason.FAILED, 1, "interrupted while waiting for the summarizer", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new SummarizationException(Reason.FAILED, 1, "the summarizer failed: " + cause, cause);
        }
    }

    /**
     * How many of {@code dialogue}'s turns (the opening aside) to fold: what the strategy asks for,
     * counting the opening as its first turn, cut back to the longest prefix that is closed and ends
     * cleanly in the log.
     */
    private int turnsToFold(StrategySession session, Dialogue dialogue) {
        int asked = strategy.turnsToFold(session);
        if (dialogue.prelude != null) {
            asked--; // the opening folds only with the turn after it
        }
        int k = 0;
        for (int t = 0; t < Math.min(asked, dialogue.turns.size()); t++) {
            if (!dialogue.turns.get(t).done()) {
                break;
            }
            if (dialogue.cutAfter(t + 1) >= 0) {
                k = t + 1;
            }
        }
        return k;
    }

    /** True if a set or clear record was appended after {@code index}. */
    private boolean rewrittenSince(long index) {
        for (Entry entry : memory.store().read(memory.sessionId(), index + 1, Integer.MAX_VALUE)) {
            if (Records.kind(entry.message()) != null) {
                return true;
            }
        }
        return false;
    }

    /** True if {@code entry} is still in the log (a replace removes every entry; indices never repeat). */
    private boolean stillInLog(Entry entry) {
        List<Entry> found = memory.store().read(memory.sessionId(), entry.index(), 1);
        return !found.isEmpty() && found.get(0).id().equals(entry.id());
    }

    private synchronized boolean takeTrigger() {
        if (triggersToSkip > 0) {
            triggersToSkip--;
            return false;
        }
        return true;
    }

    private void succeeded() {
        synchronized (this) {
            consecutiveFailures = 0;
            triggersToSkip = 0;
        }
    }

    private void failed(Reason reason, long from, long to, Throwable cause) {
        int failures;
        synchronized (this) {
            failures = ++consecutiveFailures;
            triggersToSkip = Math.min(MAX_SKIPPED_TRIGGERS, (1 << Math.min(failures - 1, 30)) - 1);
        }
        if (memory.accounting() != null) {
            memory.accounting().summaryFailed(memory.sessionId());
        }
        memory.listener().onSummaryFailure(new MemoryListener.SummaryFailure(memory.sessionId(), reason, from, to, failures, cause));
    }

    /** The running fold of a session: asked to look again, or finished. Guarded by its own lock. */
    private static final class Slot {
        boolean again;
        boolean done;
    }

    /** This session of this store in {@code RUNNING} (made when needed: memory objects stay small). */
    private FoldKey key() {
        return new FoldKey(memory.store(), memory.sessionId());
    }

    /** Identifies a session across memory instances of this process. */
    private record FoldKey(SessionStore store, String sessionId) {
    }
}
