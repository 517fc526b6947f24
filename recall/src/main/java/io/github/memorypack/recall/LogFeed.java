package io.github.memorypack.recall;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.TermQuery;

/**
 * Feeds a session's log into its {@link SessionIndex}: how far the index has read the log, and
 * {@link #catchUp}, which reads on from there and applies what the memories recorded in the log (clear
 * and set records, and their undo: see {@link UndoneRecords}; a request's retried attempts; trimmed
 * entries) and attributes each message to its turn and its context (the message before it), so that an
 * index caught up across a restart, a deletion or a failed read holds what one built in one go holds.
 *
 * <p>Part of its index: it adds and deletes the index's documents through the index's files, reads
 * them back through the index's searcher, and is called only by the index, under {@link SessionIndex#lock}.
 */
final class LogFeed {

    /** How many recent turn tags and requests are kept in memory. */
    private static final int RECENT = 1024;

    private final SessionIndex sessionIndex;
    private final String sessionId;
    private final SessionStore store;
    private final IndexFiles files;
    /** The index's messages whose embeddings are still to come (always none without a model). */
    private final PendingVectors unembedded;
    /** The index has a model: each message indexed awaits its embeddings. */
    private final boolean embeds;

    // how far the index has read the log, and the turn the next entries belong to
    private long next;
    private String lastId;
    private long turn = -1;
    private String turnId;
    // entries below this index were trimmed from the log and their documents deleted
    private long first;

    LogFeed(SessionIndex sessionIndex, String sessionId, SessionStore store, IndexFiles files,
            PendingVectors unembedded, boolean embeds) {
        this.sessionIndex = sessionIndex;
        this.sessionId = sessionId;
        this.store = store;
        this.files = files;
        this.unembedded = unembedded;
        this.embeds = embeds;
    }

    /** Takes up the position a commit point recorded ({@link SessionIndex#commit}). */
    void restore(Map<String, String> data) {
        CommitPoint point = CommitPoint.of(data);
        next = point.next();
        lastId = point.lastId();
        turn = point.turn();
        turnId = point.turnId();
        first = point.first();
        previousUnread = next > 0; // the text of the message indexed last is in the log, not the commit
        // the messages indexed before the commit whose embeddings were still to come: embedded again by
        // the first catch-up (which may read the store; the constructor does not)
        requeueFrom = embeds && point.vectors() < next ? point.vectors() : -1;
        undone.restored(next); // the records before the commit are read back from the log when an undo names them
        redo = false;
    }

    /** Forgets the position: the next catch-up reads the whole log (its documents are deleted by the caller). */
    void resetPosition() {
        clearPosition();
        undone.reset();
    }

    private void clearPosition() {
        redo = false;
        next = 0;
        lastId = null;
        turn = -1;
        turnId = null;
        first = 0;
        previousText = null;
        previousUnread = false;
        contextOf.clear();
        turnsByTag.clear();
        attemptsByRequest.clear();
        unembedded.clear();
        requeueFrom = -1;
        unembedded.failed = false;
    }

    /** The set and clear records the memories undid (see {@link UndoneRecords}). */
    private final UndoneRecords undone = new UndoneRecords();
    /**
     * An undo record read by this catch-up changed which records count: what the index applied before is
     * wrong, so the rest of the log is only read for its records and the index is then built again.
     */
    private boolean redo;

    /**
     * Throws away every document to build the index again from the start of the same log, the undo
     * records known kept (so a set or clear record they undo is not applied this time).
     */
    private void startOver() throws IOException {
        files.writer.deleteAll();
        sessionIndex.stale = true;
        clearPosition();
        undone.startOver();
    }

    /**
     * Brings the index level with the log: drops everything when the log is not the one it was built
     * from (deleted, or deleted and written again), deletes the documents of entries trimmed or
     * replaced since, then indexes the entries appended since. When an undo record it reads changes
     * which set or clear records count, the index is built again from the log (a rare path: a memory
     * undid a set() or clear() whose state write failed). True if it changed the index.
     */
    boolean catchUp() throws IOException {
        long storeNext = store.nextIndex(sessionId);
        boolean changed = false;
        if (storeNext < next || (next > 0 && !lastEntryStillThere())) {
            files.writer.deleteAll();
            resetPosition();
            changed = true;
            sessionIndex.stale = true;
        }
        if (requeueFrom >= 0) {
            requeueUnembedded(requeueFrom);
            requeueFrom = -1;
        }
        List<Entry> oldest = store.read(sessionId, 0, 1);
        long firstRetained = oldest.isEmpty() ? storeNext : oldest.get(0).index();
        if (firstRetained > first) {
            deleteEntries(Long.MIN_VALUE, firstRetained - 1);
            first = firstRetained;
            changed = true;
        }
        try {
            changed |= readLog(storeNext);
            while (redo) {
                startOver();
                first = firstRetained;
                readLog(storeNext);
                changed = true;
            }
        } catch (IOException | RuntimeException e) {
            if (redo) {
                startOver(); // what the undo made wrong is never kept (nor committed): the next catch-up starts over
            }
            throw e;
        }
        return changed;
    }

    /** Indexes the entries from {@code next} up to {@code storeNext} (or further when the log grew). True if it read any. */
    private boolean readLog(long storeNext) throws IOException {
        boolean changed = false;
        long from = Math.max(next, first);
        while (from < storeNext) {
            List<Entry> batch = store.read(sessionId, from, SessionIndex.READ_BATCH);
            if (batch.isEmpty()) {
                break;
            }
            Entry last = batch.get(batch.size() - 1);
            long turnBefore = turn;
            String turnIdBefore = turnId;
            try {
                add(batch);
            } catch (RuntimeException e) {
                // a store failure part-way (reading a context back): the batch is read again by the next
                // catch-up, so the documents it added already go (what it deleted stays deleted: that is
                // done again anyway), or they would be indexed twice
                deleteEntries(batch.get(0).index(), last.index());
                contextOf.clear();
                turn = turnBefore;
                turnId = turnIdBefore;
                throw e;
            }
            changed = true;
            next = last.index() + 1;
            lastId = last.id();
            from = next;
        }
        return changed;
    }

    /** The entry at {@code next - 1}, if still in the log, is the one the index read there. */
    private boolean lastEntryStillThere() {
        List<Entry> last = store.read(sessionId, next - 1, 1);
        return last.isEmpty() || last.get(0).index() != next - 1 || last.get(0).id().equals(lastId);
    }

    /**
     * Indexes a batch of entries in log order, applying what the memories recorded in the log as they
     * go: a clear record deletes every document before it, a set record deletes the entries it names,
     * and the first entry of a request's new attempt deletes the documents of its earlier attempts
     * (an earlier attempt that goes on writing is not indexed). An entry tagged with a turn belongs to
     * that turn's user message, however requests interleaved. A clear or set record a known undo record
     * undid is not applied, and the entries a known undo record names are not indexed at all (core's
     * {@code Dialogue}: they are not part of the conversation); see {@link UndoneRecords}.
     */
    private void add(List<Entry> entries) throws IOException {
        List<Entry> pending = new ArrayList<>(entries.size());
        List<String> texts = new ArrayList<>(entries.size());
        List<Long> turns = new ArrayList<>(entries.size());
        List<String> turnIds = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            ChatMessage message = entry.message();
            String record = LogFormat.record(message);
            if (record != null) {
                flush(pending, texts, turns, turnIds);
                if (LogFormat.CLEAR.equals(record)) {
                    undone.clearRead(entry.index());
                    if (redo || (!undone.none() && undone.clearUndone(entry.index()))) {
                        continue; // built again anyway, or undone: it clears nothing
                    }
                    deleteEntries(Long.MIN_VALUE, entry.index());
                    turn = -1;
                    turnId = null;
                    previousText = null;
                    previousUnread = false;
                    turnsByTag.clear();
                } else if (LogFormat.SET.equals(record)) {
                    List<long[]> ranges = LogFormat.superseded(message);
                    redo |= undone.setRead(entry.index(), ranges, store, sessionId);
                    if (redo || (!undone.none() && undone.superseded(entry.index()))) {
                        continue; // built again anyway, or undone: it supersedes nothing
                    }
                    for (long[] range : ranges) {
                        deleteEntries(range[0], range[1]);
                    }
                }
                sessionIndex.stale = true;
                continue;
            }
            if (redo || (!undone.none() && undone.superseded(entry.index()))) {
                continue; // built again anyway (only its records are read), or written by an undone set()
            }
            if (!latestAttempt(entry, pending, texts, turns, turnIds)) {
                continue; // an earlier attempt of a request that was retried
            }
            String tag = entry.metadata().get(LogFormat.TURN);
            long entryTurn = turn;
            String entryTurnId = turnId;
            if (message instanceof UserMessage) {
                turn = entryTurn = entry.index();
                turnId = entryTurnId = entry.id();
                if (tag != null) {
                    turnsByTag.put(tag, new TurnRef(entryTurn, entryTurnId));
                }
            } else if (tag != null) {
                TurnRef tagged = turnOf(tag, pending, texts, turns, turnIds);
                if (tagged == null) {
                    continue; // its turn's question is not part of the conversation (cleared, replaced)
                }
                entryTurn = tagged.turn();
                entryTurnId = tagged.turnId();
            }
            String text = Turns.searchableText(message);
            if (text == null || entryTurn < 0) {
                continue; // not conversation, or before the first user message (no turn to show it in)
            }
            if (previousUnread) {
                previousText = previousTextBefore(entry.index());
                previousUnread = false;
            }
            if (previousText != null) {
                contextOf.put(entry.index(), previousText);
            }
            previousText = text;
            previousIndex = entry.index();
            pending.add(entry);
            texts.add(text);
            turns.add(entryTurn);
            turnIds.add(entryTurnId);
        }
        flush(pending, texts, turns, turnIds);
    }

    /** The text of the conversation message indexed last: the context of the next one. */
    private String previousText;
    /** The log index of the message {@link #previousText} is the text of. */
    private long previousIndex = -1;
    /**
     * True after a restart, and after a deletion, until the next conversation message is indexed:
     * {@link #previousText} is then read from the log (the newest message still indexed before), so that
     * message gets the context an index built in one go gives it, never the text of a deleted message.
     */
    private boolean previousUnread;
    /** The context (the message before) of entries collected for the next {@link #flush}, by log index. */
    private final Map<Long, String> contextOf = new HashMap<>();

    /** The searchable text of the newest message indexed before log index {@code index}, read from the log; or null. */
    private String previousTextBefore(long index) throws IOException {
        long previous = sessionIndex.read(Long.MAX_VALUE, searcher -> MessageDocuments.newestBefore(searcher, index));
        previousIndex = previous;
        if (previous < 0) {
            return null;
        }
        List<Entry> entries = store.read(sessionId, previous, 1);
        return entries.isEmpty() || entries.get(0).index() != previous ? null
                : Turns.searchableText(entries.get(0).message());
    }

    /** Where a turn starts: its user message's log index and id. */
    private record TurnRef(long turn, String turnId) {
    }

    private static <K, V> Map<K, V> recent(int size) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > size;
            }
        };
    }

    /** Recent turn tags and where their turns start (older ones are looked up in the index). */
    private final Map<String, TurnRef> turnsByTag = recent(RECENT);
    /** Recent requests: the attempts seen, latest last (older requests are looked up in the index). */
    private final Map<String, List<String>> attemptsByRequest = recent(RECENT);

    private TurnRef turnOf(String tag, List<Entry> pending, List<String> texts, List<Long> turns,
                           List<String> turnIds) throws IOException {
        TurnRef known = turnsByTag.get(tag);
        if (known != null) {
            return known;
        }
        flush(pending, texts, turns, turnIds);
        Document doc = sessionIndex.read(Long.MAX_VALUE, searcher -> MessageDocuments.tagged(searcher, tag));
        if (doc == null) {
            return null;
        }
        TurnRef found = new TurnRef(doc.getField(MessageDocuments.TURN).numericValue().longValue(),
                doc.get(MessageDocuments.TURN_ID));
        turnsByTag.put(tag, found);
        return found;
    }

    /**
     * True if the entry is not of a request, or of its latest attempt. The first entry of a new
     * attempt makes it the latest and deletes the documents of the request's other attempts.
     */
    private boolean latestAttempt(Entry entry, List<Entry> pending, List<String> texts, List<Long> turns,
                                  List<String> turnIds) throws IOException {
        String request = entry.metadata().get(LogFormat.REQUEST);
        if (request == null) {
            return true;
        }
        String attempt = String.valueOf(entry.metadata().get(LogFormat.ATTEMPT));
        List<String> seen = attemptsByRequest.get(request);
        if (seen == null) {
            flush(pending, texts, turns, turnIds);
            seen = attemptsInIndex(request);
            attemptsByRequest.put(request, seen);
        }
        if (seen.isEmpty() || seen.get(seen.size() - 1).equals(attempt)) {
            if (seen.isEmpty()) {
                seen.add(attempt);
            }
            return true;
        }
        if (seen.contains(attempt)) {
            return false;
        }
        flush(pending, texts, turns, turnIds);
        seen.add(attempt);
        files.writer.deleteDocuments(new BooleanQuery.Builder()
                .add(new TermQuery(new Term(MessageDocuments.REQUEST, request)), BooleanClause.Occur.MUST)
                .add(new TermQuery(new Term(MessageDocuments.ATTEMPT, attempt)), BooleanClause.Occur.MUST_NOT).build());
        unembedded.dropOtherAttempts(request, attempt);
        sessionIndex.stale = true;
        contextDeleted();
        return true;
    }

    /** Adds the documents of the entries collected so far (embedding them in one call) and empties the lists. */
    private void flush(List<Entry> pending, List<String> texts, List<Long> turns, List<String> turnIds)
            throws IOException {
        if (pending.isEmpty()) {
            return;
        }
        for (int i = 0; i < pending.size(); i++) {
            Entry entry = pending.get(i);
            long index = entry.index();
            long time = entry.timestamp().toEpochMilli();
            String request = entry.metadata().get(LogFormat.REQUEST);
            Document doc = MessageDocuments.text(entry, turns.get(i), turnIds.get(i), texts.get(i), contextOf.remove(index),
                    request == null ? List.of() : attemptsByRequest.getOrDefault(request, List.of()));
            files.writer.addDocument(doc);
            if (embeds) {
                // its embeddings come later, from the background (see addVectors)
                unembedded.put(PendingVectors.Pending.of(entry, turns.get(i), texts.get(i)));
            }
            sessionIndex.pendingFrom = Math.min(sessionIndex.pendingFrom, turns.get(i));
        }
        sessionIndex.uncommitted += pending.size();
        pending.clear();
        texts.clear();
        turns.clear();
        turnIds.clear();
    }

    /** From a restored commit: the entries from there on whose embeddings must be made again (-1: none). */
    private long requeueFrom = -1;

    /** The attempts of a request the index holds documents of, in the order they started. */
    private List<String> attemptsInIndex(String request) throws IOException {
        return sessionIndex.read(Long.MAX_VALUE, searcher -> MessageDocuments.attempts(searcher, request));
    }

    /** Deletes the documents (text and embeddings) of the entries {@code from} to {@code to}, inclusive. */
    private void deleteEntries(long from, long to) throws IOException {
        files.writer.deleteDocuments(LongPoint.newRangeQuery(MessageDocuments.ENTRY, from, to));
        unembedded.drop(from, to);
        sessionIndex.stale = true;
        if (!previousUnread && previousText != null && previousIndex >= from && previousIndex <= to) {
            contextDeleted();
        }
    }

    /**
     * After a deletion of the message indexed last (replaced by set(), an earlier attempt, trimmed, or
     * a batch given up): the next message's context is read again from the index, the newest
     * message still indexed before it, as after a restart (else a message set() wrote, or a retry's
     * question, would be found by the words of what it replaced).
     */
    private void contextDeleted() {
        previousText = null;
        previousUnread = true;
    }

    /**
     * After a restart: the messages from {@code from} on whose text is indexed become pending again (their
     * embeddings, which may have been added after the last commit, are deleted and made again).
     */
    private void requeueUnembedded(long from) throws IOException {
        files.writer.deleteDocuments(new BooleanQuery.Builder()
                .add(new TermQuery(new Term(MessageDocuments.KIND, MessageDocuments.KIND_VECTORS)), BooleanClause.Occur.MUST)
                .add(LongPoint.newRangeQuery(MessageDocuments.ENTRY, from, Long.MAX_VALUE), BooleanClause.Occur.FILTER).build());
        sessionIndex.stale = true;
        Map<Long, Long> turns = sessionIndex.read(Long.MAX_VALUE, searcher -> MessageDocuments.turnsFrom(searcher, from));
        unembedded.requeue(store, sessionId, turns, from, next);
    }

    /** Where the index stands in the log, for its commit point (with the lowest entry whose embeddings are still to come). */
    CommitPoint position() {
        long vectors = unembedded.first(next);
        return new CommitPoint(next, lastId, turn, turnId, first,
                requeueFrom >= 0 ? Math.min(requeueFrom, vectors) : vectors);
    }
}
