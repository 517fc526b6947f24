package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The view rules every Memory Pack memory shares, written once, as a builder or provider sets them.
 * Given the {@link Dialogue} a run of the log holds, {@link #select} computes what to send:
 *
 * <ol>
 *   <li><b>Pinned first:</b> the application's system message, then the summary (as its
 *       {@link SummaryMessage.Placement} says).</li>
 *   <li><b>Whole turns only:</b> cuts fall between turns, so after the pinned messages a view starts
 *       with a user message — or with the prelude (a greeting) when the view reaches back to the
 *       start of the conversation.</li>
 *   <li><b>Tool calls stay whole:</b> an AI message with tool requests is shown with exactly its
 *       results; an interrupted call is repaired with {@value Dialogue#INTERRUPTED_TOOL_RESULT}; a
 *       call still in flight is not shown yet.</li>
 *   <li><b>The newest turn and every open turn are always kept</b>, even over the limit; the view
 *       then reports its overflow.</li>
 *   <li><b>Cost rules</b>, off unless set, on closed turns only (a turn the model has answered):
 *       tool results over a token size become a preview; images outside the newest messages become
 *       a note. The log keeps everything.</li>
 * </ol>
 *
 * <p>This type holds the rules one builder or provider set and is where views are computed from: the
 * choice of turns is {@link TurnSelection}, the cost rules {@link CostRules}, the counting
 * {@link TokenCounts}; the pinned messages are made here. Token sizes use the counts stored with each
 * entry (counted once, at append); only messages the rules rewrite or create, and entries stored
 * without a count, are counted here. Thread-safe.
 */
final class ViewRules {

    private final TokenCounts counts;
    private final CostRules costs;
    private final SummaryMessage.Placement placement;
    private final TurnSelection selection;

    ViewRules(TokenCountEstimator tokenizer, int toolResultPreviewTokens, int keepImagesInNewest,
              SummaryMessage.Placement placement) {
        this.counts = new TokenCounts(tokenizer);
        this.costs = new CostRules(toolResultPreviewTokens, keepImagesInNewest);
        this.placement = Objects.requireNonNull(placement, "placement");
        this.selection = new TurnSelection(this, counts, costs);
    }

    /** No cost rule, the default tokenizer, the summary as its own system message. */
    static ViewRules defaults() {
        return new ViewRules(null, 0, -1, SummaryMessage.Placement.SYSTEM_MESSAGE);
    }

    /** The token counts the views of these rules use. */
    TokenCounts counts() {
        return counts;
    }

    /** The estimator used for token limits and for messages the rules rewrite. */
    TokenCountEstimator tokenizer() {
        return counts.tokenizer();
    }

    /** True if views read entry token counts, so a memory should store a count with every entry. */
    boolean needsTokenCounts(ViewLimit limit) {
        return limit.countsTokens() || costs.previews();
    }

    boolean previews() {
        return costs.previews();
    }

    /** The stored count of an entry, or the tokenizer's when it has none. */
    int storedTokens(Entry entry) {
        return counts.storedTokens(entry);
    }

    /** Tokens of the pinned messages and the reply priming. */
    long pinnedTokens(List<ChatMessage> pinned) {
        return counts.pinnedTokens(pinned);
    }

    /** The pinned messages for a system message and a summary (either may be null). */
    List<ChatMessage> pinned(SystemMessage system, Summary summary) {
        List<ChatMessage> pinned = new ArrayList<>(2);
        if (summary == null) {
            if (system != null) {
                pinned.add(system);
            }
            return pinned;
        }
        switch (placement) {
            case IN_SYSTEM_MESSAGE:
                pinned.add(SummaryMessage.merged(system, summary.text()));
                break;
            case BEFORE_TURNS:
                if (system != null) {
                    pinned.add(system);
                }
                pinned.add(new SummaryBlock(summary.text()));
                break;
            default:
                if (system != null) {
                    pinned.add(system);
                }
                pinned.add(SummaryMessage.of(summary.text()));
        }
        return pinned;
    }

    /** Computes a view of a run of the log (see {@link Dialogue#of}). */
    View render(SessionState state, List<Entry> entries, boolean fromStart, ViewLimit limit, Dialogue.Context context) {
        return selection.render(state, entries, fromStart, limit, context);
    }

    /** {@link #render} showing each entry as {@code strategy} presents it (as it is when null). */
    View render(SessionState state, List<Entry> entries, boolean fromStart, ViewLimit limit, Dialogue.Context context,
                MemoryStrategy strategy) {
        return selection.render(state, entries, fromStart, limit, context, strategy);
    }

    /** {@link TurnSelection#render(SessionState, List, ViewLimit)}: outside any request, at the time of the newest entry. */
    View render(SessionState state, List<Entry> entries, ViewLimit limit) {
        return selection.render(state, entries, limit);
    }

    /** {@link TurnSelection#select(Dialogue, SessionState, ViewLimit, MemoryStrategy.Plan, MemoryStrategy)}. */
    View select(Dialogue dialogue, SessionState state, ViewLimit limit, MemoryStrategy.Plan plan, MemoryStrategy strategy) {
        return selection.select(dialogue, state, limit, plan, strategy);
    }

    /** {@link TurnSelection#select(Dialogue, long, ViewLimit)}. */
    View select(Dialogue dialogue, long stateVersion, ViewLimit limit) {
        return selection.select(dialogue, stateVersion, limit);
    }

    /** {@link TurnSelection#extend}: the last view extended by {@code appended}, or empty to render again. */
    Optional<View> extend(View previous, SessionState state, List<Entry> appended, ViewLimit limit,
                          MemoryStrategy strategy) {
        return selection.extend(previous, state, appended, limit, strategy);
    }

    /** True if {@code message} is one the rules create and never store (a summary, a record). */
    static boolean synthetic(ChatMessage message) {
        return message instanceof SummaryMessage || message instanceof SummaryBlock
                || (message instanceof CustomMessage && Records.kind(message) != null);
    }

    @Override
    public String toString() {
        return "ViewRules{tokenizer=" + counts.tokenizerSet() + ", " + costs + ", placement=" + placement + '}';
    }
}
