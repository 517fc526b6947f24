package io.github.memorypack.core;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The view rules every Memory Pack memory shares, written once. Given a session's state and a
 * contiguous run of its log (usually the tail), {@link #render} computes what to send:
 *
 * <ol>
 *   <li><b>System message pinned first.</b> The application's system message is the one in
 *       {@link SessionState#systemMessage()}; {@link SystemMessage} entries in the log are records
 *       of past changes and are never shown as ordinary messages.</li>
 *   <li><b>Summary.</b> A {@link Summary} in the state is shown right after the system message, as a
 *       system message under {@link #SUMMARY_HEADER} (see {@link #summaryMessage}); the entries it
 *       covers are not shown.</li>
 *   <li><b>Whole turns only.</b> A turn is a user message and everything after it up to the next
 *       user message. Cuts happen only between turns, so after the pinned messages a view always
 *       starts with a user message — never with an AI message or a tool result. Messages before
 *       the first user message of the entries given are not shown.</li>
 *   <li><b>Tool calls stay whole.</b> The results of an AI message's tool requests are shown right
 *       after it, matched by request id (by tool name when a provider gives no ids), even when a
 *       concurrent request's messages landed in between in the log. Results matching no request
 *       are dropped. A request with no result that has later messages after it (the tool call was
 *       interrupted, for example by a crash) gets a synthetic result, {@value #INTERRUPTED_TOOL_RESULT};
 *       a request with no result at the very end of the log is left out with its AI message
 *       (the tool may still be running).</li>
 *   <li><b>The newest turn is always kept</b>, even when it alone (with the pinned messages) is over
 *       the limit; the view then reports {@link View#overLimit()} and the memory tells its
 *       {@link OverflowListener}.</li>
 *   <li><b>Optional cost rules</b>, off by default: tool results over a token size are shown as a
 *       preview of their first {@value #TOOL_RESULT_PREVIEW_CHARS} characters plus a note in every
 *       turn but the newest; images are kept only in the newest n messages, older ones are replaced
 *       by {@value #IMAGE_NOTE}. The log always keeps the full messages.</li>
 * </ol>
 *
 * <p>Token sizes use the counts stored with each entry (counted once, at append); only messages the
 * rules rewrite or create, and entries stored without a count, are counted here. Thread-safe.
 */
public final class ViewRules {

    /** Header of the rendered summary message. */
    public static final String SUMMARY_HEADER =
            "Summary of the earlier conversation (written by the chat memory; the messages it covers are not repeated):";
    /** Text of the synthetic result that repairs an interrupted tool call. */
    public static final String INTERRUPTED_TOOL_RESULT = "no result: the tool call was interrupted";
    /** Suggested size above which a tool result is previewed, when previews are enabled. */
    public static final int DEFAULT_TOOL_RESULT_PREVIEW_TOKENS = 2_000;
    /** How many characters of a large tool result a preview shows. */
    public static final int TOOL_RESULT_PREVIEW_CHARS = 400;
    /** What replaces an image outside the newest messages. */
    public static final String IMAGE_NOTE = "[image omitted: it was shown earlier in the conversation]";

    private static final ViewRules DEFAULTS = builder().build();

    // resolved on first use, so views that never count tokens never load an encoding
    private volatile TokenCountEstimator tokenizer;
    private volatile int replyTokens = -1;
    private final int toolResultPreviewTokens;
    private final int keepImagesInNewest;
    private final AtomicReference<Counted> systemCount = new AtomicReference<>();
    private final AtomicReference<Counted> summaryCount = new AtomicReference<>();

    private ViewRules(Builder builder) {
        this.tokenizer = builder.tokenizer;
        this.toolResultPreviewTokens = builder.toolResultPreviewTokens;
        this.keepImagesInNewest = builder.keepImagesInNewest;
    }

    /** The rules with no cost rule enabled and {@link Tokenizers#o200k()} for token limits. */
    public static ViewRules defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The estimator used for token limits and for messages the rules rewrite. */
    public TokenCountEstimator tokenizer() {
        TokenCountEstimator estimator = tokenizer;
        if (estimator == null) {
            estimator = Tokenizers.o200k();
            tokenizer = estimator;
        }
        return estimator;
    }

    /** Tokens a request costs besides its messages: what the estimator charges for no message at all. */
    private int replyTokens() {
        int tokens = replyTokens;
        if (tokens < 0) {
            tokens = tokenizer().estimateTokenCountInMessages(List.of());
            replyTokens = tokens;
        }
        return tokens;
    }

    /**
     * True if rendering with {@code limit} reads entry token counts, so a memory should store a
     * count with every entry it appends.
     */
    public boolean needsTokenCounts(ViewLimit limit) {
        return limit.countsTokens() || toolResultPreviewTokens > 0;
    }

    /** The rendered form of a summary: a system message with {@link #SUMMARY_HEADER} then the text. */
    public static SystemMessage summaryMessage(Summary summary) {
        return SystemMessage.from(SUMMARY_HEADER + "\n\n" + summary.text());
    }

    /**
     * Computes a view.
     *
     * @param state   the session state (system message, summary)
     * @param entries a contiguous run of the log in index order, ending with the newest entry;
     *                entries covered by the state's summary are skipped
     * @param limit   the bound to keep to
     */
    public View render(SessionState state, List<Entry> entries, ViewLimit limit) {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(entries, "entries");
        Objects.requireNonNull(limit, "limit");
        long covered = state.summary().map(Summary::coveredUntil).orElse(0L);
        boolean skippedCovered = false;
        // a slot is an Entry (a plain message) or a Unit (an AI message with tool requests and its results)
        List<Object> slots = new ArrayList<>(entries.size());
        int[] turnStarts = new int[16];
        int turns = 0;
        Map<String, ArrayDeque<Unit>> open = null;
        for (Entry entry : entries) {
            if (entry.index() < covered) {
                skippedCovered = true;
                continue;
            }
            ChatMessage message = entry.message();
            if (message instanceof SystemMessage) {
                continue;
            }
            if (message instanceof ToolExecutionResultMessage) {
                ToolExecutionResultMessage result = (ToolExecutionResultMessage) message;
                String key = key(result.id(), result.toolName());
                ArrayDeque<Unit> waiting = open == null ? null : open.get(key);
                Unit unit = waiting == null ? null : waiting.pollFirst();
                if (unit != null) {
                    unit.answer(key, entry);
                }
                continue; // a result matching no open request is an orphan: dropped
            }
            if (message instanceof AiMessage && ((AiMessage) message).hasToolExecutionRequests()) {
                Unit unit = new Unit(entry);
                if (open == null) {
                    open = new HashMap<>();
                }
                for (ToolExecutionRequest request : ((AiMessage) message).toolExecutionRequests()) {
                    String key = key(request.id(), request.name());
                    unit.pending.add(new Pending(key, request));
                    open.computeIfAbsent(key, k -> new ArrayDeque<>()).add(unit);
                }
                slots.add(unit);
                continue;
            }
            if (message instanceof UserMessage) {
                if (turns == turnStarts.length) {
                    turnStarts = Arrays.copyOf(turnStarts, turns * 2);
                }
                turnStarts[turns++] = slots.size();
            }
            slots.add(entry);
        }
        int end = slots.size();
        if (end > 0 && slots.get(end - 1) instanceof Unit && !((Unit) slots.get(end - 1)).pending.isEmpty()) {
            end--; // an unanswered call at the very end may still be running: not shown yet
        }
        boolean inFlight = end < slots.size();
        Entry last = entries.isEmpty() ? null : entries.get(entries.size() - 1);
        return select(state, slots, turnStarts, turns, end, limit, skippedCovered, inFlight, last);
    }

    /** Chooses the newest turns within the limit; turn t is slots[turnStarts[t], next start or end). */
    private View select(SessionState state, List<Object> slots, int[] turnStarts, int turns, int end, ViewLimit limit,
                        boolean skippedCovered, boolean inFlight, Entry last) {
        List<ChatMessage> pinned = new ArrayList<>(2);
        state.systemMessage().ifPresent(pinned::add);
        SystemMessage summary = state.summary().map(ViewRules::summaryMessage).orElse(null);
        if (summary != null) {
            pinned.add(summary);
        }
        boolean tokens = limit.countsTokens();
        long size;
        if (tokens) {
            size = replyTokens();
            if (state.systemMessage().isPresent()) {
                size += countCached(systemCount, state.systemMessage().get());
            }
            if (summary != null) {
                size += countCached(summaryCount, summary);
            }
        } else {
            size = limit.unit() == ViewLimit.Unit.TURNS ? 0 : pinned.size();
        }
        long pinnedSize = size;
        long[] turnSizes = new long[turns];
        int selected = 0;
        int shownItems = 0;
        for (int t = turns - 1; t >= 0; t--) {
            int from = turnStarts[t];
            int to = t + 1 < turns ? turnStarts[t + 1] : end;
            boolean newest = t == turns - 1;
            int items = 0;
            for (int i = from; i < to; i++) {
                Object slot = slots.get(i);
                items += slot instanceof Entry ? 1 : ((Unit) slot).size();
            }
            long turnSize;
            if (limit.unit() == ViewLimit.Unit.TURNS) {
                turnSize = 1;
            } else if (tokens) {
                turnSize = tokens(slots, from, to, newest, shownItems + items);
            } else {
                turnSize = items;
            }
            if (!newest && limit.cuts() && size + turnSize > limit.value()) {
                break;
            }
            size += turnSize;
            turnSizes[t] = turnSize;
            shownItems += items;
            selected++;
        }
        List<ChatMessage> messages = new ArrayList<>(pinned.size() + shownItems);
        messages.addAll(pinned);
        long firstIndex = -1;
        int[] offsets = new int[selected];
        long[] firstIndices = new long[selected];
        if (selected > 0) {
            int firstTurn = turns - selected;
            int first = turnStarts[firstTurn];
            int newestStart = turnStarts[turns - 1];
            firstIndex = ((Entry) slots.get(first)).index();
            int fromEnd = shownItems;
            int nextTurn = firstTurn;
            for (int i = first; i < end; i++) {
                Object slot = slots.get(i);
                if (nextTurn < turns && i == turnStarts[nextTurn]) {
                    offsets[nextTurn - firstTurn] = messages.size();
                    firstIndices[nextTurn - firstTurn] = ((Entry) slot).index();
                    nextTurn++;
                }
                boolean newest = i >= newestStart;
                if (slot instanceof Entry) {
                    messages.add(shown(((Entry) slot).message(), (Entry) slot, newest, --fromEnd));
                } else {
                    for (Object item : ((Unit) slot).items()) {
                        messages.add(shown(messageOf(item), entryOf(item), newest, --fromEnd));
                    }
                }
            }
        }
        boolean needsOlder = selected == turns && !skippedCovered;
        int viewSize = limit.unit() == null ? messages.size() : (int) Math.min(Integer.MAX_VALUE, size);
        // a view can be extended by later plain messages when no rule looks at what comes after a message
        boolean extendable = selected > 0 && !inFlight && toolResultPreviewTokens <= 0 && keepImagesInNewest < 0;
        View.Tail tail = null;
        if (extendable) {
            long[] selectedSizes = Arrays.copyOfRange(turnSizes, turns - selected, turns);
            TurnTrack track = TurnTrack.of(messages, pinned.size(), offsets, firstIndices, selectedSizes);
            long total = 0;
            for (long turnSize : selectedSizes) {
                total += turnSize;
            }
            tail = new View.Tail(track, 0, selected, messages.size() - pinned.size(), total, state.version(),
                    List.copyOf(pinned), pinnedSize, last);
        }
        return new View(Collections.unmodifiableList(messages), limit, viewSize, selected, firstIndex, needsOlder, tail);
    }

    /**
     * The view {@code previous} would become with {@code appended} added to the log, computed from
     * {@code previous} alone — or empty when that is not possible and a caller must {@link #render}
     * again. It is possible when the state has the version {@code previous} was computed from, the
     * limit is the same, the appended entries are only user messages and AI messages without tool
     * requests, {@code previous} showed at least one turn, no call was in flight, and no cost rule is
     * enabled. The result equals what {@link #render} would compute over the same entries.
     *
     * @param appended the entries after the newest one {@code previous} was computed from, in index order
     */
    public Optional<View> extend(View previous, SessionState state, List<Entry> appended, ViewLimit limit) {
        View.Tail tail = previous.tail();
        if (tail == null || tail.stateVersion != state.version() || !previous.limit().equals(limit)) {
            return Optional.empty();
        }
        if (appended.isEmpty()) {
            return Optional.of(previous);
        }
        int users = 0;
        for (Entry entry : appended) {
            ChatMessage message = entry.message();
            if (message instanceof UserMessage) {
                users++;
            } else if (!(message instanceof AiMessage) || ((AiMessage) message).hasToolExecutionRequests()) {
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
        boolean countTurns = limit.unit() == ViewLimit.Unit.TURNS;
        boolean tokens = limit.countsTokens();
        for (Entry entry : appended) {
            ChatMessage message = entry.message();
            if (message instanceof UserMessage) {
                track.turnStarts[turnTo] = messageTo;
                track.turnFirstIndices[turnTo] = entry.index();
                track.sizeBefore[turnTo] = total;
                turnTo++;
                if (countTurns) {
                    total++;
                }
            }
            if (!countTurns) {
                total += tokens ? storedTokens(entry) : 1; // messages before the first user message join the last turn
            }
            track.messages[messageTo++] = message;
        }
        int firstTurn = turnFrom;
        long size = tail.pinnedSize + total - track.sizeBefore[turnFrom];
        while (limit.cuts() && turnFrom < turnTo - 1 && size > limit.value()) {
            turnFrom++;
            size = tail.pinnedSize + total - track.sizeBefore[turnFrom];
        }
        Entry last = appended.get(appended.size() - 1);
        View.Tail next = new View.Tail(track, turnFrom, turnTo, messageTo, total, tail.stateVersion, tail.pinned,
                tail.pinnedSize, last);
        List<ChatMessage> messages = track.list(tail.pinned, next.messageFrom(), messageTo);
        int viewSize = limit.unit() == null ? messages.size() : (int) Math.min(Integer.MAX_VALUE, size);
        boolean needsOlder = previous.needsOlderEntries() && turnFrom == firstTurn;
        return Optional.of(new View(messages, limit, viewSize, turnTo - turnFrom, track.turnFirstIndices[turnFrom],
                needsOlder, next));
    }

    /** Tokens of the turn in slots[from, to), as shown; {@code itemsToEnd} counts its items and all newer ones. */
    private long tokens(List<Object> slots, int from, int to, boolean newest, int itemsToEnd) {
        long tokens = 0;
        int fromEnd = itemsToEnd;
        for (int i = from; i < to; i++) {
            Object slot = slots.get(i);
            if (slot instanceof Entry) {
                tokens += tokensShown((Entry) slot, (Entry) slot, newest, --fromEnd);
            } else {
                for (Object item : ((Unit) slot).items()) {
                    tokens += tokensShown(item, entryOf(item), newest, --fromEnd);
                }
            }
        }
        return tokens;
    }

    private int tokensShown(Object item, Entry entry, boolean newestTurn, int fromEnd) {
        ChatMessage original = messageOf(item);
        ChatMessage shown = shown(original, entry, newestTurn, fromEnd);
        if (entry != null && shown == original) {
            return storedTokens(entry);
        }
        return tokenizer().estimateTokenCountInMessage(shown);
    }

    private static ChatMessage messageOf(Object item) {
        return item instanceof Entry ? ((Entry) item).message() : (ChatMessage) item;
    }

    private static Entry entryOf(Object item) {
        return item instanceof Entry ? (Entry) item : null;
    }

    /** The message as the cost rules show it; {@code entry} is null for a synthetic repair. */
    private ChatMessage shown(ChatMessage message, Entry entry, boolean newestTurn, int fromEnd) {
        if (entry == null) {
            return message;
        }
        if (!newestTurn && toolResultPreviewTokens > 0 && message instanceof ToolExecutionResultMessage
                && storedTokens(entry) > toolResultPreviewTokens) {
            message = preview((ToolExecutionResultMessage) message, storedTokens(entry));
        }
        if (keepImagesInNewest >= 0 && fromEnd >= keepImagesInNewest) {
            message = withoutImages(message);
        }
        return message;
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

    private int storedTokens(Entry entry) {
        return entry.hasTokenCount() ? entry.tokenCount() : tokenizer().estimateTokenCountInMessage(entry.message());
    }

    private int countCached(AtomicReference<Counted> cache, ChatMessage message) {
        Counted counted = cache.get();
        if (counted == null || !counted.message.equals(message)) {
            counted = new Counted(message, tokenizer().estimateTokenCountInMessage(message));
            cache.set(counted);
        }
        return counted.tokens;
    }

    private static String key(String id, String toolName) {
        return id != null ? "id:" + id : "name:" + toolName;
    }

    @Override
    public String toString() {
        return "ViewRules{tokenizer=" + tokenizer + ", toolResultPreviewTokens=" + toolResultPreviewTokens
                + ", keepImagesInNewest=" + keepImagesInNewest + '}';
    }

    private static final class Pending {
        final String key;
        final ToolExecutionRequest request;

        Pending(String key, ToolExecutionRequest request) {
            this.key = key;
            this.request = request;
        }
    }

    /** A message with the results of its tool requests, in log order. */
    private static final class Unit {
        final Entry head;
        final List<Entry> results = new ArrayList<>(0);
        final List<Pending> pending = new ArrayList<>(0);

        Unit(Entry head) {
            this.head = head;
        }

        void answer(String key, Entry result) {
            results.add(result);
            for (int i = 0; i < pending.size(); i++) {
                if (pending.get(i).key.equals(key)) {
                    pending.remove(i);
                    return;
                }
            }
        }

        int size() {
            return 1 + results.size() + pending.size();
        }

        /** The AI message's entry, its results' entries in log order, then a synthetic result per unanswered request. */
        List<Object> items() {
            List<Object> items = new ArrayList<>(size());
            items.add(head);
            items.addAll(results);
            for (Pending p : pending) {
                items.add(ToolExecutionResultMessage.from(p.request, INTERRUPTED_TOOL_RESULT));
            }
            return items;
        }
    }

    private static final class Counted {
        final ChatMessage message;
        final int tokens;

        Counted(ChatMessage message, int tokens) {
            this.message = message;
            this.tokens = tokens;
        }
    }

    /** Builder for {@link ViewRules}; every cost rule is off unless set. */
    public static final class Builder {

        private TokenCountEstimator tokenizer;
        private int toolResultPreviewTokens;
        private int keepImagesInNewest = -1;

        private Builder() {
        }

        /**
         * The estimator for token limits and rewritten messages; {@code null} (the default) means
         * {@link Tokenizers#o200k()}, loaded only if a view ever counts tokens.
         */
        public Builder tokenizer(TokenCountEstimator tokenizer) {
            this.tokenizer = tokenizer;
            return this;
        }

        /**
         * Shows tool results of more than {@code maxTokens} tokens as a short preview plus a note in
         * every turn but the newest ({@value ViewRules#DEFAULT_TOOL_RESULT_PREVIEW_TOKENS} is a good
         * value). The log keeps the full result.
         */
        public Builder toolResultPreviews(int maxTokens) {
            if (maxTokens < 1) {
                throw new IllegalArgumentException("maxTokens must be >= 1, was " + maxTokens);
            }
            this.toolResultPreviewTokens = maxTokens;
            return this;
        }

        /**
         * Keeps images only in the newest {@code messages} messages of the view; older images are
         * replaced by {@value ViewRules#IMAGE_NOTE}. 0 replaces every image.
         */
        public Builder keepImagesInNewest(int messages) {
            if (messages < 0) {
                throw new IllegalArgumentException("messages must be >= 0, was " + messages);
            }
            this.keepImagesInNewest = messages;
            return this;
        }

        public ViewRules build() {
            return new ViewRules(this);
        }
    }
}
