package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which turns a view shows, written once for every memory: given the {@link Dialogue} a run of the
 * log holds and a {@link ViewLimit} (with a strategy's plan, if any), {@link #select} chooses, in whole
 * turns, the pinned messages (system message, summary), every open turn and the newest, the plan's
 * kept turns, then closed turns from the newest back while they fit, and the prelude when the view
 * reaches the start; a chunked limit keeps its anchor while the window fits. {@link #extend} computes
 * the same view incrementally from the last one when only plain turns were appended. The rules in
 * {@link ViewRules} say how each turn is shown (previews and image notes: {@link CostRules}) and
 * counted ({@link TokenCounts}). Thread-safe.
 */
final class TurnSelection {

    private final ViewRules rules;
    private final TokenCounts counts;
    private final CostRules costs;

    TurnSelection(ViewRules rules, TokenCounts counts, CostRules costs) {
        this.rules = rules;
        this.counts = counts;
        this.costs = costs;
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
                new Dialogue.Context(now, MemoryOptions.DEFAULT_OPEN_TURN_TIMEOUT, null, null));
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
        List<ChatMessage> pinned = rules.pinned(dialogue.system, dialogue.summary);
        ChatMessage summaryMessage = dialogue.summary == null ? null : pinned.get(pinned.size() - 1);
        boolean tokens = limit.countsTokens();
        boolean countTurns = limit.unit() == MemoryListener.Overflow.Unit.TURNS;
        long pinnedSize = tokens ? counts.pinnedTokens(pinned) : countTurns ? 0 : pinned.size();
        UserMessage preface = plan == null ? null : plan.preface;
        long size = pinnedSize + (preface == null ? 0 : tokens ? counts.countCached(preface) : countTurns ? 0 : 1);

        List<DialogueTurn> turns = dialogue.turns;
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
            DialogueTurn turn = turns.get(t);
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
        int room = roomed ? QuestionRoom.tokens(dialogue, rules) : 0;
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
        if (costs.dropsImages()) {
            costs.dropOldImages(messages, sources, pinned.size(), turns, selected);
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
        DialogueTurn newestTurn = n == 0 ? null : turns.get(n - 1);
        boolean extendable = selectedCount > 0 && selected[n - 1] && prelude == null && !olderOpen && !dialogue.orphans && !dialogue.hiddenAny
                && !costs.rewrites() && newestTurn.inFlight() == null
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
        if (limit.countsTokens() && limit.cuts() && firstIndex >= 0) {
            // retention keeps the questions the next new request's room is estimated from
            firstIndex = Math.min(firstIndex, QuestionRoom.estimatedFrom(dialogue));
        }
        return new View(Collections.unmodifiableList(messages), Collections.unmodifiableList(sources), limit, viewSize,
                selectedCount, firstIndex, needsOlder, summaryMessage, tail, cutIndex, dialogue.hiddenRunning,
                dialogue.hiddenAny, preface);
    }

    private static boolean isHidden(boolean[] hidden, int t) {
        return hidden != null && hidden[t];
    }

    /** True if every selected turn is only plain user and AI messages (what {@link #extend} appends). */
    private static boolean plain(List<DialogueTurn> turns, boolean[] selected) {
        for (int t = 0; t < turns.size(); t++) {
            if (!selected[t]) {
                continue;
            }
            for (Object slot : turns.get(t).slots) {
                if (slot instanceof DialogueTurn.Unit) {
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

    private Shown shown(DialogueTurn turn, ViewLimit limit, MemoryStrategy strategy) {
        Shown s = new Shown();
        boolean done = turn.done();
        DialogueTurn.Unit inFlight = turn.inFlight();
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
            DialogueTurn.Unit unit = (DialogueTurn.Unit) slot;
            if (unit == inFlight) {
                continue; // the tool may still be running: shown once its results are in
            }
            add(s, shown(unit.head, strategy), unit.head, tokens);
            for (Entry result : unit.results) {
                ChatMessage message = done ? costs.previewOf(result, counts) : null;
                if (message == null) {
                    message = shown(result, strategy);
                }
                add(s, message, result, tokens);
            }
            for (DialogueTurn.Pending pending : unit.pending) {
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
                    ? counts.storedTokens(source) : counts.tokenizer().estimateTokenCountInMessage(message);
        }
    }

    private long recount(List<ChatMessage> messages, List<Entry> sources, List<ChatMessage> pinned, long pinnedSize) {
        long size = pinnedSize;
        for (int i = pinned.size(); i < messages.size(); i++) {
            Entry source = sources.get(i);
            ChatMessage message = messages.get(i);
            size += source != null && message == source.message()
                    ? counts.storedTokens(source) : counts.tokenizer().estimateTokenCountInMessage(message);
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
        int count = appended.size(); // indexed loops: appended is a short random-access list (a view of a read)
        for (int i = 0; i < count; i++) {
            Entry entry = appended.get(i);
            ChatMessage message = entry.message();
            if (EntryTags.request(entry) != null) {
                return Optional.empty();
            }
            String tag = EntryTags.turn(entry);
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
        for (int i = 0; i < count; i++) {
            Entry entry = appended.get(i);
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
                total += !tokens ? 1 : message == entry.message() ? counts.storedTokens(entry)
                        : counts.tokenizer().estimateTokenCountInMessage(message);
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
        Entry last = appended.get(count - 1);
        View.Tail next = new View.Tail(track, turnFrom, turnTo, messageTo, total, tail.stateVersion, tail.pinned,
                tail.pinnedSize, last, open, turnId);
        List<ChatMessage> messages = track.list(tail.pinned, next.messageFrom(), messageTo);
        List<Entry> sources = track.sourceList(tail.pinned.size(), next.messageFrom(), messageTo);
        int viewSize = limit.unit() == null ? messages.size() : (int) Math.min(Integer.MAX_VALUE, size);
        boolean needsOlder = previous.needsOlderEntries() && turnFrom == firstTurn;
        long firstIndex = track.turnFirstIndices[turnFrom];
        if (tokens && limit.cuts()) {
            // retention keeps the questions a new request's room is estimated from (every turn of a track has one);
            // when the track holds fewer, what the previous view kept
            int oldest = turnTo - QuestionRoom.RECENT_QUESTIONS;
            firstIndex = Math.min(firstIndex, oldest >= 0 ? track.turnFirstIndices[oldest] : previous.firstIndex());
        }
        return Optional.of(new View(messages, sources, limit, viewSize, turnTo - turnFrom,
                firstIndex, needsOlder, previous.summaryMessage(), next,
                track.turnFirstIndices[turnFrom]));
    }
}
