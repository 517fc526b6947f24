package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The view rules every Memory Pack memory shares, written once. Given the {@link Dialogue} a run of
 * the log holds, {@link #select} computes what to send:
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
 * <p>Token sizes use the counts stored with each entry (counted once, at append); only messages the
 * rules rewrite or create, and entries stored without a count, are counted here. Thread-safe.
 */
final class ViewRules {

    /** Suggested size above which a tool result is previewed, when previews are enabled. */
    static final int DEFAULT_TOOL_RESULT_PREVIEW_TOKENS = 2_000;
    /** How many characters of a large tool result a preview shows. */
    static final int TOOL_RESULT_PREVIEW_CHARS = 400;
    /** What replaces an image outside the newest messages. */
    static final String IMAGE_NOTE = "[image omitted: it was shown earlier in the conversation]";
    /** How many counted system messages and summaries the rules keep (one per active session is enough). */
    static final int PINNED_COUNTS = 256;

    private volatile TokenCountEstimator tokenizer;
    private volatile int replyTokens = -1;
    private final int toolResultPreviewTokens;
    private final int keepImagesInNewest;
    private final SummaryMessage.Placement placement;
    // token counts of system messages and summaries, counted once each: the rules are shared by every
    // memory of a provider, so this is bounded (most recently used first kept) rather than one per session
    private final Map<ChatMessage, Integer> pinnedCounts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ChatMessage, Integer> eldest) {
            return size() > PINNED_COUNTS;
        }
    };

    ViewRules(TokenCountEstimator tokenizer, int toolResultPreviewTokens, int keepImagesInNewest,
              SummaryMessage.Placement placement) {
        this.tokenizer = tokenizer;
        this.toolResultPreviewTokens = toolResultPreviewTokens;
        this.keepImagesInNewest = keepImagesInNewest;
        this.placement = Objects.requireNonNull(placement, "placement");
    }

    /** No cost rule, the default tokenizer, the summary as its own system message. */
    static ViewRules defaults() {
        return new ViewRules(null, 0, -1, SummaryMessage.Placement.SYSTEM_MESSAGE);
    }

    /** The estimator used for token limits and for messages the rules rewrite. */
    TokenCountEstimator tokenizer() {
        TokenCountEstimator estimator = tokenizer;
        if (estimator == null) {
            estimator = Tokenizers.o200k();
            tokenizer = estimator;
        }
        return estimator;
    }

    /** True if views read entry token counts, so a memory should store a count with every entry. */
    boolean needsTokenCounts(ViewLimit limit) {
        return limit.countsTokens() || toolResultPreviewTokens > 0;
    }

    boolean previews() {
        return toolResultPreviewTokens > 0;
    }

    /** Tokens a request costs besides its messages: what the estimator charges for no message at all. */
    int replyTokens() {
        int tokens = replyTokens;
        if (tokens < 0) {
            tokens = tokenizer().estimateTokenCountInMessages(List.of());
            replyTokens = tokens;
        }
        return tokens;
    }

    /** The stored count of an entry, or the tokenizer's when it has none. */
    int storedTokens(Entry entry) {
        return entry.hasTokenCount() ? entry.tokenCount() : tokenizer().estimateTokenCountInMessage(entry.message());
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

    /** Tokens of the pinned messages and the reply priming. */
    long pinnedTokens(List<ChatMessage> pinned) {
        long size = replyTokens();
        for (ChatMessage message : pinned) {
            size += countCached(message);
        }
        return size;
    }

    /** Computes a view of a run of the log (see {@link Dialogue#of}). */
    View render(SessionState state, List<Entry> entries, boolean fromStart, ViewLimit limit, Dialogue.Context context) {
        return render(state, entries, fromStart, limit, context, null);
    }

    /** {@link #render} showing each entry as {@code strategy} presents it (as it is when null). */
    View render(SessionState state, List<Entry> entries, boolean fromStart, ViewLimit limit, Dialogue.Context context,
                MemoryStrategy strategy) {
        return select(Dialogue.of(state, entries, fromStart, context), state, limit, null, strategy);
    }

    /**
     * The view of {@code dialogue} (read with {@code state}) under {@code plan} (null: the limit
     * alone), each entry shown as {@code strategy} presents it (as it is when null).
     */
    View select(Dialogue dialogue, SessionState state, ViewLimit limit, MemoryStrategy.Plan plan, MemoryStrategy strategy) {
        long anchor = limit.isChunked() ? Records.longAttribute(state, limit.anchorKey(), -1) : -1;
        return select(dialogue, state.version(), limit, anchor, plan, strategy);
    }

    /**
     * {@link #render} outside any request, at the time of the newest entry (so no turn is taken as
     * abandoned), counting the run as the start of the log when its first index is 0.
     */
    View render(SessionState state, List<Entry> entries, ViewLimit limit) {
        boolean fromStart = entries.isEmpty() || entries.get(0).index() == 0;
        java.time.Instant now = entries.isEmpty() ? java.time.Instant.EPOCH : entries.get(entries.size() - 1).timestamp();
        return render(state, entries, fromStart, limit,
                new Dialogue.Context(now, MemoryOptions.DEFAULT_OPEN_TURN_TIMEOUT, null));
    }

    /** Chooses the newest turns within the limit, every open turn, and the prelude when everything fits. */
    View select(Dialogue dialogue, long stateVersion, ViewLimit limit) {
        return select(dialogue, stateVersion, limit, -1, null, null);
    }

    /**
     * {@link #select} for a chunked limit whose window starts at log index {@code anchor} (-1: none
     * yet): every closed turn from the anchor on is kept while everything fits in the limit; when it
     * would not, the view drops to the newest turns within the limit's low mark, and its
     * {@link View#cutIndex()} becomes the next anchor.
     *
     * <p>With a {@code plan}: its oldest hidden turns are left out (never an open one, nor the newest),
     * its kept turns are shown whatever the limit, and its preface follows the pinned messages.
     */
    View select(Dialogue dialogue, long stateVersion, ViewLimit limit, long anchor, MemoryStrategy.Plan plan,
                MemoryStrategy strategy) {
        Objects.requireNonNull(limit, "limit");
        List<ChatMessage> pinned = pinned(dialogue.system, dialogue.summary);
        ChatMessage summaryMessage = dialogue.summary == null ? null : pinned.get(pinned.size() - 1);
        boolean tokens = limit.countsTokens();
        boolean countTurns = limit.unit() == MemoryListener.Overflow.Unit.TURNS;
        long pinnedSize = tokens ? pinnedTokens(pinned) : countTurns ? 0 : pinned.size();
        UserMessage preface = plan == null ? null : plan.preface;
        long size = pinnedSize + (preface == null ? 0 : tokens ? countCached(preface) : countTurns ? 0 : 1);

        List<Dialogue.Turn> turns = dialogue.turns;
        int n = turns.size();
        // the plan's hidden and kept turns; the opening (the prelude) is the oldest of them
        int hide = plan == null ? 0 : plan.hide;
        int keep = plan == null ? 0 : plan.keep;
        boolean hidePrelude = dialogue.prelude != null && hide > 0;
        boolean keepPrelude = dialogue.prelude != null && !hidePrelude && keep > 0;
        int hideTurns = hidePrelude ? hide - 1 : hide;
        int keepTurns = keepPrelude ? keep - 1 : keep;
        Shown[] shown = new Shown[n];
        boolean[] selected = new boolean[n];
        boolean[] hidden = hide > 0 ? new boolean[n] : null;
        boolean stopped = false;
        int selectedCount = 0;
        boolean olderOpen = false;
        // AiServices adds the new question after it reads the view: a token limit leaves room for it
        boolean roomed = limit.countsTokens() && limit.cuts() && dialogue.questionPending;
        // what can never be cut first (the newest turn, open turns, kept turns), then closed turns from the newest back
        for (int t = n - 1; t >= 0; t--) {
            Dialogue.Turn turn = turns.get(t);
            shown[t] = shown(turn, limit, strategy);
            if (hidden != null && t < hideTurns && t < n - 1 && turn.done()) {
                hidden[t] = true;
                continue;
            }
            if (t == n - 1 || !turn.done() || (t >= hideTurns && t < hideTurns + keepTurns)) {
                selected[t] = true;
                selectedCount++;
                size += shown[t].size;
                if (t != n - 1 && !turn.done()) {
                    olderOpen = true;
                }
            }
        }
        int room = roomed ? QuestionRoom.tokens(dialogue, this) : 0;
        int budget = Math.max(1, limit.value() - room);
        int low = Math.max(0, limit.low() - room);
        boolean anchored = false;
        if (limit.isChunked() && limit.cuts() && anchor >= 0) {
            long withAnchor = size;
            for (int t = n - 1; t >= 0; t--) {
                if (!selected[t] && !isHidden(hidden, t) && turns.get(t).firstIndex >= anchor) {
                    withAnchor += shown[t].size;
                }
            }
            if (withAnchor <= budget) {
                anchored = true; // the window keeps its start: consecutive requests share their prefix
                for (int t = n - 1; t >= 0; t--) {
                    if (!selected[t] && !isHidden(hidden, t) && turns.get(t).firstIndex >= anchor) {
                        selected[t] = true;
                        selectedCount++;
                        size += shown[t].size;
                    } else if (!selected[t]) {
                        stopped = true;
                    }
                }
            } else {
                budget = low; // over the limit: drop a whole chunk
            }
        }
        for (int t = n - 1; t >= 0 && !stopped && !anchored; t--) {
            if (selected[t]) {
                continue;
            }
            if (isHidden(hidden, t)) {
                stopped = true; // hidden turns are the oldest: nothing older is shown
                break;
            }
            if (!limit.cuts() || size + shown[t].size <= budget) {
                selected[t] = true;
                selectedCount++;
                size += shown[t].size;
            } else {
                stopped = true;
            }
        }
        Shown prelude = null;
        if (dialogue.prelude != null && dialogue.reachesStart && !hidePrelude && (!stopped || keepPrelude)) {
            Shown p = shown(dialogue.prelude, limit, strategy);
            if (!limit.cuts() || keepPrelude || size + p.size <= budget) {
                prelude = p;
                size += countTurns ? 0 : p.size;
            }
        }

        List<ChatMessage> messages = new ArrayList<>(pinned.size() + 16);
        List<Entry> sources = new ArrayList<>(pinned.size() + 16);
        messages.addAll(pinned);
        for (int i = 0; i < pinned.size(); i++) {
            sources.add(null);
        }
        if (preface != null) {
            messages.add(preface);
            sources.add(null);
        }
        long firstIndex = -1;
        if (prelude != null) {
            messages.addAll(prelude.messages);
            sources.addAll(prelude.sources);
            // the greeting is shown because the view reaches the conversation's start: retain from there
            firstIndex = Math.min(dialogue.prelude.firstIndex, dialogue.startIndex);
        }
        int[] offsets = new int[selectedCount];
        long[] firstIndices = new long[selectedCount];
        long[] sizes = new long[selectedCount];
        int k = 0;
        for (int t = 0; t < n; t++) {
            if (!selected[t]) {
                continue;
            }
            if (firstIndex < 0) {
                firstIndex = turns.get(t).firstIndex; // turns are in the order of their user messages
            }
            offsets[k] = messages.size();
            firstIndices[k] = turns.get(t).firstIndex;
            sizes[k] = shown[t].size;
            k++;
            messages.addAll(shown[t].messages);
            sources.addAll(shown[t].sources);
        }
        if (keepImagesInNewest >= 0) {
            dropOldImages(messages, sources, pinned.size(), turns, selected);
            if (tokens) {
                size = recount(messages, sources, pinned, pinnedSize);
            }
        }
        boolean needsOlder = !dialogue.fromStart && (!stopped || dialogue.orphans || dialogue.ownMissing);
        // where the contiguous run of shown turns that ends with the newest starts: a chunked window's anchor
        long cutIndex = -1;
        if (prelude != null) {
            cutIndex = dialogue.startIndex;
        } else if (n > 0 && selected[n - 1]) {
            int t0 = n - 1;
            while (t0 > 0 && selected[t0 - 1]) {
                t0--;
            }
            cutIndex = turns.get(t0).firstIndex;
        }
        int viewSize = limit.unit() == null ? messages.size() : (int) Math.min(Integer.MAX_VALUE, size);

        View.Tail tail = null;
        Dialogue.Turn newestTurn = n == 0 ? null : turns.get(n - 1);
        boolean extendable = selectedCount > 0 && selected[n - 1] && prelude == null && !olderOpen && !dialogue.orphans && !dialogue.hiddenAny
                && toolResultPreviewTokens <= 0 && keepImagesInNewest < 0 && newestTurn.inFlight() == null
                && (plan == null || !plan.readsEveryTurn()) && plain(turns, selected);
        if (extendable) {
            TurnTrack track = TurnTrack.of(messages, sources, pinned.size(), offsets, firstIndices, sizes);
            long total = 0;
            for (long s : sizes) {
                total += s;
            }
            tail = new View.Tail(track, 0, selectedCount, messages.size() - pinned.size(), total, stateVersion,
                    List.copyOf(pinned), pinnedSize, dialogue.last, !newestTurn.done(), newestTurn.id);
        }
        return new View(Collections.unmodifiableList(messages), Collections.unmodifiableList(sources), limit, viewSize,
                selectedCount, firstIndex, needsOlder, summaryMessage, tail, cutIndex, dialogue.hiddenRunning,
                dialogue.hiddenAny, preface);
    }

    private static boolean isHidden(boolean[] hidden, int t) {
        return hidden != null && hidden[t];
    }

    /** True if every selected turn is only plain user and AI messages (what {@link #extend} appends). */
    private static boolean plain(List<Dialogue.Turn> turns, boolean[] selected) {
        for (int t = 0; t < turns.size(); t++) {
            if (!selected[t]) {
                continue;
            }
            for (Object slot : turns.get(t).slots) {
                if (slot instanceof Dialogue.Unit) {
                    return false;
                }
            }
        }
        return true;
    }

    /** A turn as it is shown: its messages, their sources and its size in the limit's unit. */
    private static final class Shown {
        final List<ChatMessage> messages = new ArrayList<>(4);
        final List<Entry> sources = new ArrayList<>(4);
        long size;
    }

    private Shown shown(Dialogue.Turn turn, ViewLimit limit, MemoryStrategy strategy) {
        Shown s = new Shown();
        boolean done = turn.done();
        Dialogue.Unit inFlight = turn.inFlight();
        boolean tokens = limit.countsTokens();
        if (turn.user != null) {
            add(s, shown(turn.user, strategy), turn.user, tokens);
        }
        for (Object slot : turn.slots) {
            if (slot instanceof Entry) {
                Entry entry = (Entry) slot;
                add(s, shown(entry, strategy), entry, tokens);
                continue;
            }
            Dialogue.Unit unit = (Dialogue.Unit) slot;
            if (unit == inFlight) {
                continue; // the tool may still be running: shown once its results are in
            }
            add(s, shown(unit.head, strategy), unit.head, tokens);
            for (Entry result : unit.results) {
                ChatMessage message;
                if (done && toolResultPreviewTokens > 0 && storedTokens(result) > toolResultPreviewTokens) {
                    message = preview((ToolExecutionResultMessage) result.message(), storedTokens(result));
                } else {
                    message = shown(result, strategy);
                }
                add(s, message, result, tokens);
            }
            for (Dialogue.Pending pending : unit.pending) {
                add(s, ToolExecutionResultMessage.from(pending.request, Dialogue.INTERRUPTED_TOOL_RESULT), null, tokens);
            }
        }
        if (limit.unit() == MemoryListener.Overflow.Unit.TURNS) {
            s.size = 1;
        } else if (!tokens) {
            s.size = s.messages.size();
        }
        return s;
    }

    /** The message shown for {@code entry}: as {@code strategy} presents it (as it is when null). */
    private static ChatMessage shown(Entry entry, MemoryStrategy strategy) {
        if (strategy == null) {
            return entry.message();
        }
        ChatMessage message = strategy.present(entry);
        if (message == null) {
            throw new IllegalStateException("strategy " + strategy.name() + " presented entry " + entry.index()
                    + " as null");
        }
        return message;
    }

    private void add(Shown s, ChatMessage message, Entry source, boolean tokens) {
        s.messages.add(message);
        s.sources.add(source);
        if (tokens) {
            s.size += source != null && message == source.message()
                    ? storedTokens(source) : tokenizer().estimateTokenCountInMessage(message);
        }
    }

    /** Replaces images outside the newest {@code keepImagesInNewest} messages, in closed turns only. */
    private void dropOldImages(List<ChatMessage> messages, List<Entry> sources, int pinned, List<Dialogue.Turn> turns,
                               boolean[] selected) {
        java.util.Set<Entry> open = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int t = 0; t < turns.size(); t++) {
            if (selected[t] && !turns.get(t).done()) {
                open.addAll(turns.get(t).entries());
            }
        }
        for (int i = pinned; i < messages.size() - keepImagesInNewest; i++) {
            Entry source = sources.get(i);
            if (source != null && !open.contains(source)) {
                messages.set(i, withoutImages(messages.get(i)));
            }
        }
    }

    private long recount(List<ChatMessage> messages, List<Entry> sources, List<ChatMessage> pinned, long pinnedSize) {
        long size = pinnedSize;
        for (int i = pinned.size(); i < messages.size(); i++) {
            Entry source = sources.get(i);
            ChatMessage message = messages.get(i);
            size += source != null && message == source.message()
                    ? storedTokens(source) : tokenizer().estimateTokenCountInMessage(message);
        }
        return size;
    }

    /**
     * The view {@code previous} would become with {@code appended} added to the log, computed from
     * {@code previous} alone — or empty when a caller must {@link #render} again. Possible when the
     * state has the version {@code previous} was computed from, the limit is the same, and the
     * appended entries are plain user messages and AI messages without tool requests that continue
     * the newest turn or start a new one after it closed, outside any request scope. The result
     * equals what {@link #render} would compute over the same entries.
     */
    Optional<View> extend(View previous, SessionState state, List<Entry> appended, ViewLimit limit,
                          MemoryStrategy strategy) {
        View.Tail tail = previous.tail();
        if (tail == null || tail.stateVersion != state.version() || !previous.limit().equals(limit)) {
            return Optional.empty();
        }
        if (appended.isEmpty()) {
            return Optional.of(previous);
        }
        int users = 0;
        boolean open = tail.newestOpen;
        String turnId = tail.newestTurnId;
        for (Entry entry : appended) {
            ChatMessage message = entry.message();
            if (Records.request(entry) != null) {
                return Optional.empty();
            }
            String tag = Records.turn(entry);
            if (message instanceof UserMessage) {
                if (open) {
                    return Optional.empty(); // a new turn while the newest is open: requests interleave
                }
                users++;
                open = true;
                turnId = tag;
            } else if (message instanceof AiMessage && !((AiMessage) message).hasToolExecutionRequests()) {
                if (tag != null && turnId != null && !tag.equals(turnId)) {
                    return Optional.empty(); // an answer to another turn
                }
                open = false;
            } else {
                return Optional.empty();
            }
        }
        // the slots after the previous view's range are ours alone; a new track starts at its first turn
        TurnTrack track = tail.track.reserve(tail.turnFrom, tail.turnTo, tail.messageTo, appended.size(), users);
        boolean moved = track != tail.track;
        int turnFrom = moved ? 0 : tail.turnFrom;
        int turnTo = moved ? tail.turnTo - tail.turnFrom : tail.turnTo;
        int messageTo = moved ? tail.messageTo - tail.messageFrom() : tail.messageTo;
        long total = tail.total;
        boolean countTurns = limit.unit() == MemoryListener.Overflow.Unit.TURNS;
        boolean tokens = limit.countsTokens();
        for (Entry entry : appended) {
            ChatMessage message = shown(entry, strategy);
            if (entry.message() instanceof UserMessage) {
                track.turnStarts[turnTo] = messageTo;
                track.turnFirstIndices[turnTo] = entry.index();
                track.sizeBefore[turnTo] = total;
                turnTo++;
                if (countTurns) {
                    total++;
                }
            }
            if (!countTurns) {
                total += !tokens ? 1 : message == entry.message() ? storedTokens(entry)
                        : tokenizer().estimateTokenCountInMessage(message);
            }
            track.sources[messageTo] = entry;
            track.messages[messageTo++] = message;
        }
        int firstTurn = turnFrom;
        long size = tail.pinnedSize + total - track.sizeBefore[turnFrom];
        // only the newest turn can be open here, so every turn this evicts is closed; a chunked limit,
        // once passed, drops to its low mark
        int target = limit.isChunked() && size > limit.value() ? limit.low() : limit.value();
        while (limit.cuts() && turnFrom < turnTo - 1 && size > target) {
            turnFrom++;
            size = tail.pinnedSize + total - track.sizeBefore[turnFrom];
        }
        Entry last = appended.get(appended.size() - 1);
        View.Tail next = new View.Tail(track, turnFrom, turnTo, messageTo, total, tail.stateVersion, tail.pinned,
                tail.pinnedSize, last, open, turnId);
        List<ChatMessage> messages = track.list(tail.pinned, next.messageFrom(), messageTo);
        List<Entry> sources = track.sourceList(tail.pinned.size(), next.messageFrom(), messageTo);
        int viewSize = limit.unit() == null ? messages.size() : (int) Math.min(Integer.MAX_VALUE, size);
        boolean needsOlder = previous.needsOlderEntries() && turnFrom == firstTurn;
        return Optional.of(new View(messages, sources, limit, viewSize, turnTo - turnFrom,
                track.turnFirstIndices[turnFrom], needsOlder, previous.summaryMessage(), next,
                track.turnFirstIndices[turnFrom]));
    }

    private static ToolExecutionResultMessage preview(ToolExecutionResultMessage result, int tokens) {
        StringBuilder text = new StringBuilder();
        for (Content content : result.contents()) {
            if (content instanceof TextContent) {
                text.append(((TextContent) content).text());
            }
        }
        String head = text.length() > TOOL_RESULT_PREVIEW_CHARS ? text.substring(0, TOOL_RESULT_PREVIEW_CHARS) : text.toString();
        String shown = head + "\n[tool result shortened to a preview: the full result, about " + tokens
                + " tokens, was shown when the tool ran and is kept in the conversation log]";
        return result.toBuilder().contents(List.of(TextContent.from(shown))).build();
    }

    private static ChatMessage withoutImages(ChatMessage message) {
        if (message instanceof UserMessage) {
            UserMessage user = (UserMessage) message;
            List<Content> contents = replaceImages(user.contents());
            return contents == null ? message : user.toBuilder().contents(contents).build();
        }
        if (message instanceof ToolExecutionResultMessage) {
            ToolExecutionResultMessage result = (ToolExecutionResultMessage) message;
            List<Content> contents = replaceImages(result.contents());
            return contents == null ? message : result.toBuilder().contents(contents).build();
        }
        return message;
    }

    /** The contents with every image replaced by a note, or null when there is no image. */
    private static List<Content> replaceImages(List<Content> contents) {
        List<Content> replaced = null;
        for (int i = 0; i < contents.size(); i++) {
            if (contents.get(i) instanceof ImageContent) {
                if (replaced == null) {
                    replaced = new ArrayList<>(contents);
                }
                replaced.set(i, TextContent.from(IMAGE_NOTE));
            }
        }
        return replaced;
    }

    private int countCached(ChatMessage message) {
        Integer count;
        synchronized (pinnedCounts) {
            count = pinnedCounts.get(message);
        }
        if (count == null) {
            count = tokenizer().estimateTokenCountInMessage(message);
            synchronized (pinnedCounts) {
                pinnedCounts.put(message, count);
            }
        }
        return count;
    }

    /** How many pinned-message counts are held (for tests). */
    int pinnedCountsHeld() {
        synchronized (pinnedCounts) {
            return pinnedCounts.size();
        }
    }

    /** True if {@code message} is one the rules create and never store (a summary, a record). */
    static boolean synthetic(ChatMessage message) {
        return message instanceof SummaryMessage || message instanceof SummaryBlock
                || (message instanceof CustomMessage && Records.kind(message) != null);
    }

    @Override
    public String toString() {
        return "ViewRules{tokenizer=" + tokenizer + ", toolResultPreviewTokens=" + toolResultPreviewTokens
                + ", keepImagesInNewest=" + keepImagesInNewest + ", placement=" + placement + '}';
    }
}
