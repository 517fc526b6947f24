package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.SummarizationException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Folding, shared by the summarizing memories: reads the unsummarized tail of the log, asks a
 * {@link Policy} where a fold should end, summarizes that range into the running summary and stores
 * it with compare-and-set. The summary lives only in the session state, so a new engine on the same
 * store continues from it.
 *
 * <p>Rules: a fold covers a prefix of the unsummarized log ending at a turn boundary; a summary that
 * is thrown, {@code null}, blank or over the cap changes nothing and is reported; a fold whose
 * compare-and-set finds that another fold moved the summary first is dropped (its range is already
 * covered or will be); at most one fold per session runs at once in this process, and a turn that
 * finishes during a fold makes that fold look again when it is done; after k failures
 * in a row the next 2^(k-1) − 1 triggers are skipped (at most {@value #MAX_SKIPPED_TRIGGERS}), so a
 * broken summarizer is not called on every turn.
 */
public final class FoldEngine {

    /** Chooses where a fold ends. */
    @FunctionalInterface
    public interface Policy {
        /**
         * @param spans the unsummarized turns, oldest first
         * @return the exclusive log index the fold should cover up to (a span's {@code end}), or -1
         *         for no fold now
         */
        long foldEnd(List<Turns.Span> spans);
    }

    /** Most triggers skipped after repeated failures before the next attempt. */
    static final int MAX_SKIPPED_TRIGGERS = 31;

    private static final ConcurrentMap<FoldKey, Slot> RUNNING = new ConcurrentHashMap<>();

    private final SessionMemory memory;
    private final SummarySettings settings;
    private final TokenCountEstimator tokenizer;
    private final int maxSummaryTokens;
    private final Policy policy;
    private final FoldKey key;
    private int consecutiveFailures;
    private int triggersToSkip;

    public FoldEngine(SessionMemory memory, SummarySettings settings, TokenCountEstimator tokenizer, Policy policy) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.settings = settings.copy();
        this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
        this.maxSummaryTokens = settings.maxSummaryTokens();
        this.policy = Objects.requireNonNull(policy, "policy");
        this.key = new FoldKey(memory.store(), memory.sessionId());
    }

    /** The stored summary, if the session has one. */
    public Optional<Summary> summary() {
        return memory.state().summary();
    }

    /**
     * The view: pinned system message, the summary, then every turn the summary does not cover.
     * Binds the session for {@link TokenAccounting#listener} when a ledger is set.
     */
    public View view(ViewRules rules) {
        SessionState state = memory.state();
        long covered = state.summary().map(Summary::coveredUntil).orElse(0L);
        View view = memory.from(rules, ViewLimit.none(), covered);
        memory.afterView(view);
        TokenAccounting accounting = settings.accounting();
        if (accounting != null) {
            accounting.bind(memory.sessionId());
        }
        return view;
    }

    /**
     * Called when a turn finished: folds now (inline) or hands a fold to the executor (background),
     * unless failures asked to wait. When a fold of this session is already running, it is asked to
     * look again once it is done, so turns that finish meanwhile are not left unfolded.
     */
    public void turnFinished() {
        if (!takeTrigger()) {
            return;
        }
        Slot mine = new Slot();
        while (true) {
            Slot running = RUNNING.putIfAbsent(key, mine);
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
        if (settings.executor() == null) {
            foldWhileAsked(mine);
            return;
        }
        try {
            settings.executor().execute(() -> foldWhileAsked(mine));
        } catch (RejectedExecutionException e) {
            release(mine);
            failed(Reason.FAILED, -1, -1, e);
        }
    }

    /**
     * Folds, and folds again while other triggers asked to during the fold, then releases the
     * session. A failure ends the loop (the backoff decides when to try again); a store failure is
     * reported, never thrown at the turn.
     */
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
            RUNNING.remove(key, slot);
        }
    }

    /** One fold; false if it failed (and was reported). */
    private boolean fold() {
        SessionState state = memory.state();
        Summary previous = state.summary().orElse(null);
        long covered = previous == null ? 0 : previous.coveredUntil();
        List<Entry> entries = memory.store().read(memory.sessionId(), covered, Integer.MAX_VALUE);
        long end = policy.foldEnd(Turns.of(entries, tokenizer));
        if (end <= covered) {
            return true;
        }
        List<ChatMessage> messages = new ArrayList<>();
        Entry lastFolded = null;
        String previousText = previous == null ? "" : previous.text();
        int inputTokens = tokenizer.estimateTokenCountInText(previousText);
        for (Entry entry : entries) {
            if (entry.index() < end && !(entry.message() instanceof SystemMessage)) {
                messages.add(entry.message());
                lastFolded = entry;
                inputTokens += entry.hasTokenCount() ? entry.tokenCount() : tokenizer.estimateTokenCountInMessage(entry.message());
            }
        }
        if (messages.isEmpty()) {
            return true;
        }
        String text;
        try {
            text = settings.summarizer().summarize(previousText, List.copyOf(messages));
        } catch (SummarizationException e) {
            failed(e.reason(), covered, end, e);
            return false;
        } catch (RuntimeException e) {
            failed(Reason.FAILED, covered, end, e);
            return false;
        }
        if (text == null || text.isBlank()) {
            failed(Reason.EMPTY, covered, end, null);
            return false;
        }
        text = text.strip();
        int outputTokens = tokenizer.estimateTokenCountInText(text);
        if (outputTokens > maxSummaryTokens) {
            failed(Reason.TOO_LONG, covered, end, null);
            return false;
        }
        Summary next = new Summary(text, end, outputTokens, settings.clock().instant());
        while (true) {
            SessionState now = memory.state();
            if (!Objects.equals(now.summary().orElse(null), previous)) {
                return true; // another fold (another instance or process) moved the summary first
            }
            if (!stillInLog(lastFolded)) {
                return true; // set() replaced the log meanwhile: this summary describes messages that are gone
            }
            if (memory.store().compareAndSetState(memory.sessionId(), now.version(), now.withSummary(next)).isPresent()) {
                break;
            }
        }
        succeeded();
        if (settings.accounting() != null) {
            settings.accounting().recordSummarization(memory.sessionId(), inputTokens, outputTokens);
        }
        return true;
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
        if (settings.accounting() != null) {
            settings.accounting().recordSummarizationFailure(memory.sessionId());
        }
        settings.failureListener().onFailure(new SummaryFailure(memory.sessionId(), reason, from, to, failures, cause));
    }

    /** The running fold of a session: asked to look again, or finished. Guarded by its own lock. */
    private static final class Slot {
        boolean again;
        boolean done;
    }

    /** Identifies a session across memory instances of this process. */
    private record FoldKey(SessionStore store, String sessionId) {
    }
}
