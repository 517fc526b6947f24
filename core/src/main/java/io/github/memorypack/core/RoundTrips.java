package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * LangChain4j's round trips for the memories of one builder or provider, applied to the log
 * without loss: {@code set} (replace all messages) supersedes only what the caller's view showed
 * from the first difference on and appends the new messages in the same atomic append, and
 * {@code clear} appends a clear record and resets the state as of it. Thread-safe; one instance per
 * {@link SessionMemory.Shared}.
 */
final class RoundTrips {

    private final SessionMemory.Shared shared;
    private final Appender appender;

    RoundTrips(SessionMemory.Shared shared, Appender appender) {
        this.shared = shared;
        this.appender = appender;
    }

    /**
     * LangChain4j's "replace all messages", applied to what {@code current} (this thread's view)
     * showed: entries up to the first message that differs stay exactly as they are, and so does
     * everything the view did not show (history before it, a tool call in flight, superseded
     * attempts). From the first difference on, the shown entries are superseded by one set record
     * and the new messages are appended after it, in the same atomic append. Previews and image notes
     * map back to their full entries; synthetic repairs are never stored; a summary message goes
     * back to the state. Writes nothing when nothing changed.
     *
     * @throws IllegalArgumentException if {@code messages} is null, empty or holds null
     */
    void set(SessionMemory memory, Iterable<ChatMessage> messages, View current) {
        List<ChatMessage> list = Checks.messages(messages, true);
        String sessionId = memory.sessionId();
        SessionState state = shared.store.state(sessionId);
        List<ChatMessage> shown = current.messages();
        List<Entry> sources = current.sources();
        int pinned = 0;
        while (pinned < shown.size() && sources.get(pinned) == null
                && (shown.get(pinned) instanceof SystemMessage || shown.get(pinned) instanceof SummaryBlock)) {
            pinned++;
        }
        ChatMessage preface = current.preface(); // the strategy's: never stored, so never compared
        if (preface != null && pinned < shown.size() && shown.get(pinned) == preface) {
            pinned++;
        }
        // the pinned part of the list: system message and summary
        SystemMessage system = null;
        String summaryText = null;
        List<ChatMessage> rest = new ArrayList<>(list.size());
        for (ChatMessage message : list) {
            if (message instanceof SummaryMessage) {
                summaryText = ((SummaryMessage) message).summaryText();
                system = ((SummaryMessage) message).applicationSystemMessage().orElse(system);
            } else if (message instanceof SummaryBlock) {
                summaryText = ((SummaryBlock) message).summaryText();
            } else if (message instanceof SystemMessage) {
                system = (SystemMessage) message;
            } else if (preface == null || !message.equals(preface)) {
                rest.add(message);
            }
        }
        SystemMessage currentSystem = null;
        for (int i = 0; i < pinned; i++) {
            if (shown.get(i) instanceof SystemMessage && !(shown.get(i) instanceof SummaryMessage)) {
                currentSystem = (SystemMessage) shown.get(i);
            } else if (shown.get(i) instanceof SummaryMessage) {
                currentSystem = ((SummaryMessage) shown.get(i)).applicationSystemMessage().orElse(currentSystem);
            }
        }
        boolean systemChanged = system != null && !system.equals(currentSystem);
        // LangChain4j's set replaces all messages: a list without a system message removes it
        boolean systemRemoved = system == null && currentSystem != null;
        String currentSummary = state.summary().map(Summary::text).orElse(null);
        boolean summaryChanged = summaryText != null && !summaryText.equals(currentSummary);

        rest = withoutHistoryBeforeView(sessionId, rest, shown, sources, pinned, state);
        int p = 0;
        int shownCount = shown.size() - pinned;
        while (p < rest.size() && p < shownCount && rest.get(p).equals(shown.get(pinned + p))) {
            p++;
        }
        if (p == rest.size() && p == shownCount && !systemChanged && !systemRemoved && !summaryChanged) {
            return;
        }
        // what the list brings from the first difference on, mapped back to full entries
        Map<ChatMessage, Entry> byValue = new HashMap<>();
        for (int i = pinned + p; i < shown.size(); i++) {
            if (sources.get(i) != null) {
                byValue.putIfAbsent(shown.get(i), sources.get(i));
            }
        }
        List<Long> superseded = new ArrayList<>();
        for (int i = pinned + p; i < shown.size(); i++) {
            Entry source = sources.get(i);
            if (source != null) {
                superseded.add(source.index());
            }
        }
        RequestTurns turns = RequestTurns.of(memory);
        List<NewEntry> batch = new ArrayList<>(rest.size() - p + 2);
        if (!superseded.isEmpty()) {
            batch.add(NewEntry.of(Records.set(superseded), 0));
        }
        for (int j = p; j < rest.size(); j++) {
            ChatMessage message = rest.get(j);
            Entry source = byValue.get(message);
            if (source == null && isRepair(message)) {
                continue; // a synthetic repair a view made: never stored as a real result
            }
            if (source != null) {
                // a message the view showed (a preview or an image note maps back to its full entry)
                batch.add(NewEntry.of(source.message(), appender.count(source.message()), source.metadata()));
            } else {
                batch.add(turns.entry(message, appender.count(message))); // a new message: tagged like an add
            }
        }
        if (systemChanged) {
            batch.add(turns.entry(system, appender.count(system)));
        } else if (systemRemoved) {
            batch.add(NewEntry.of(Records.noSystem(), 0));
        }
        String key = turns.key();
        List<Entry> stored = batch.isEmpty() ? List.of() : appender.append(sessionId, turns, batch, key);
        shared.cache.remove(memory);
        if (systemChanged || systemRemoved || summaryChanged) {
            long systemIndex = systemChanged || systemRemoved ? stored.get(stored.size() - 1).index() : -1;
            appender.updateStateOrUndo(memory, stored, key, systemChanged ? system : null, systemRemoved, systemIndex,
                    summaryChanged ? summaryText : null, state.summary().map(Summary::coveredUntil).orElse(0L), "set");
        }
    }

    /**
     * A list that brings the conversation from before the view too (LangChain4j's "replace all
     * messages" with the whole history): its part that equals what the log holds just before the view,
     * followed by the view's first message, is already there and is not stored again. Reads the log
     * only when the list does not start with the view's first message.
     */
    private List<ChatMessage> withoutHistoryBeforeView(String sessionId, List<ChatMessage> rest, List<ChatMessage> shown, List<Entry> sources,
            int pinned, SessionState state) {
        if (pinned >= shown.size() || sources.get(pinned) == null || rest.size() < 2
                || rest.get(0).equals(shown.get(pinned))) {
            return rest;
        }
        long viewStart = sources.get(pinned).index();
        List<Entry> entries = shared.store.read(sessionId, Records.longAttribute(state, Records.CLEARED_AT, -1) + 1,
                Integer.MAX_VALUE);
        List<ChatMessage> before = new ArrayList<>();
        for (Entry entry : Dialogue.live(state, entries)) {
            if (entry.index() < viewStart && !(entry.message() instanceof SystemMessage)) {
                before.add(entry.message());
            }
        }
        for (int k = Math.min(before.size(), rest.size() - 1); k > 0; k--) {
            if (rest.get(k).equals(shown.get(pinned))
                    && rest.subList(0, k).equals(before.subList(before.size() - k, before.size()))) {
                return rest.subList(k, rest.size());
            }
        }
        return rest;
    }

    private static boolean isRepair(ChatMessage message) {
        return message instanceof ToolExecutionResultMessage
                && Dialogue.INTERRUPTED_TOOL_RESULT.equals(((ToolExecutionResultMessage) message).text());
    }

    /**
     * Starts the conversation over in every view: appends a clear record and resets the state's
     * system message and summary as of that record. With a retention that trims, everything before
     * the record is trimmed for good; otherwise it stays in the log (exportable, searchable, never
     * shown again). Log and state change together or not at all: when the state cannot be written,
     * the clear record is superseded again (one set record: views show what they showed before) and
     * the failure is thrown.
     *
     * @throws StoreException if the store failed; views and state are then as before (unless the
     *         undo failed too: then views follow the clear record, its failure added as suppressed)
     */
    void clear(SessionMemory memory) {
        String sessionId = memory.sessionId();
        RequestScope scope = RequestScope.activeOrThread();
        String key = scope.nextKey(sessionId);
        List<Entry> stored = shared.store.append(sessionId, List.of(NewEntry.of(Records.clear(), 0)), key);
        long index = stored.get(stored.size() - 1).index();
        try {
            while (true) {
                SessionState state = shared.store.state(sessionId);
                if (Records.longAttribute(state, Records.CLEARED_AT, -1) >= index) {
                    break;
                }
                Map<String, String> attributes = new HashMap<>(state.attributes());
                attributes.put(Records.CLEARED_AT, Long.toString(index));
                attributes.put(Records.SYSTEM_INDEX, Long.toString(index));
                SessionState next = state.withSystemMessage(null).withSummary(null).withAttributes(attributes);
                if (shared.store.compareAndSetState(sessionId, state.version(), next).isPresent()) {
                    break;
                }
            }
        } catch (StoreException e) {
            // a clear record the state does not follow would leave the state's system message and summary
            // behind for good (the next add of the same system message skipped, folds never shown again)
            throw appender.undo(memory, List.of(index), key, e, "clear() on chat memory " + sessionId + " could not"
                    + " store the session state; its clear record was superseded again, so views and state are as"
                    + " before", "clear() on chat memory " + sessionId + " could not store the session state, nor undo"
                    + " its clear record: views show the conversation cleared, the state does not");
        }
        shared.cache.remove(memory);
        memory.firstRetained(-1);
        // a request whose question the clear removed holds up no other any more (one that failed without
        // the listeners would otherwise until openTurnTimeout); the clearing request's own turn runs on
        memory.gate().clearedBut(RequestTurns.of(memory).own());
        shared.retainer.retain(memory, index + 1);
    }
}
