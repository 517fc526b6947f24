package io.github.memorypack.recall;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.embedding.EmbeddingModel;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recall index of one session: a Lucene index with one document per user or AI message that
 * has text (its log index, its turn's index and id, the text for BM25) and, with a model, a second
 * document per message with its embeddings, added later (see {@link #addVectors}): {@link #catchUp}
 * indexes the words and leaves the message {@linkplain #pendingBatch pending}, for the background. It is
 * derived from the log and only from the log (and, for a clear() the memory undid, from where the
 * state says it was cleared, as the memories read it: see {@link UndoneRecords}): {@link #catchUp}
 * brings it level with the store before every search, and anything that does not match the log (a
 * deleted and re-created session, a replaced log, a damaged or foreign index) is thrown away and rebuilt. Every deletion also drops the pending
 * messages it covers, so an embedding that arrives late never brings a deleted message back.
 *
 * <p>Not thread-safe: callers hold {@link #lock} around every call.
 */
final class SessionIndex implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(SessionIndex.class);

    /** Bumped when the document layout changes; an index of another format is rebuilt. */
    static final String FORMAT = "7";
    /** Documents added between two commits of a persistent index (an uncommitted tail is caught up from the log). */
    static final int COMMIT_EVERY = 512;
    static final int READ_BATCH = 256;

    /** How many recent turn tags and requests are kept in memory. */
    private static final int RECENT = 1024;

    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when embeddings were added (a query may wait for those of the turns it can return). */
    private final Condition embedded = lock.newCondition();

    private final String sessionId;
    private final SessionStore store;
    private final EmbeddingModel model;
    private final String modelKey;
    /** The cosine similarity that counts as no similarity for this model (its unrelated texts' level). */
    private final double similarityFloor;
    private final RecallAnalyzer analyzer = new RecallAnalyzer();

    private final IndexFiles files;
    boolean closed;
    // the files were opened (the first use, under the lock: see openFiles)
    private boolean opened;

    // how far the index has read the log, and the turn the next entries belong to
    private long next;
    private String lastId;
    private long turn = -1;
    private String turnId;
    // entries below this index were trimmed from the log and their documents deleted
    private long first;
    private int uncommitted;
    // the searcher must be refreshed before the next search (documents were deleted)
    private boolean stale;
    // lowest turn among documents added since the searcher was last refreshed
    private long pendingFrom = Long.MAX_VALUE;

    /**
     * The index of a session, its files not opened yet ({@link #openFiles}). {@code path} {@code null}
     * keeps it in memory.
     */
    SessionIndex(String sessionId, SessionStore store, EmbeddingModel model, String modelKey, Path path) {
        this.sessionId = sessionId;
        this.store = store;
        this.model = model;
        this.modelKey = modelKey;
        this.files = new IndexFiles(sessionId, path);
        // LangChain4j's own class of the default model makes the same vectors: the same floor
        // (model first: without the optional artifact, QuietOnnxModel cannot be loaded, lexical-only needs no floor)
        this.similarityFloor = model == null ? 0 : model instanceof QuietOnnxModel
                ? ((QuietOnnxModel) model).similarityFloor()
                : model.getClass().getName().equals(RecallContentRetriever.DEFAULT_MODEL_CLASS) ? QuietOnnxModel.MINILM_FLOOR : 0;
    }

    /**
     * Opens (or creates) the index's files on its first use, under {@link #lock}: reading and checking
     * a persistent index's files holds up this session only, not the retriever's other sessions. A
     * persistent index that cannot be opened (damaged, another format or model, locked by another
     * process) is rebuilt, or, when locked, kept in memory for this process. When even that fails, or the
     * thread is interrupted, the index is closed (the next use makes a new one) and the failure thrown.
     */
    void openFiles() {
        if (opened) {
            return;
        }
        try {
            open();
        } catch (RuntimeException e) {
            closed = true;
            files.close();
            throw e;
        }
        opened = true;
    }

    private void open() {
        try {
            files.open(this::config, data -> CommitPoint.current(data, FORMAT, modelKey),
                    new IndexFiles.Position() {
                        @Override
                        public void restore(Map<String, String> data) {
                            SessionIndex.this.restore(data);
                        }

                        @Override
                        public void reset() throws IOException {
                            resetPosition();
                            commit();
                        }
                    });
        } catch (RuntimeException e) {
            closed |= Thread.currentThread().isInterrupted(); // a cancelled request: see IndexFiles#open
            throw e;
        }
    }

    private IndexWriterConfig config() {
        // a merged segment's vectors are decoded by the merge thread before searchers see the segment,
        // so that no query pays for decoding the vectors of thousands of messages at once
        IndexWriterConfig config = new IndexWriterConfig(analyzer).setCommitOnClose(false);
        return model == null ? config : config.setMergedSegmentWarmer(reader -> vectorScan.vectors(reader, true));
    }

    private void restore(Map<String, String> data) {
        CommitPoint point = CommitPoint.of(data);
        next = point.next();
        lastId = point.lastId();
        turn = point.turn();
        turnId = point.turnId();
        first = point.first();
        previousUnread = next > 0; // the text of the message indexed last is in the log, not the commit
        // the messages indexed before the commit whose embeddings were still to come: embedded again by
        // the first catch-up (which may read the store; the constructor does not)
        requeueFrom = model != null && point.vectors() < next ? point.vectors() : -1;
        undone.restored(next); // the records before the commit are read back from the log when an undo names them
        redo = false;
    }

    private void resetPosition() {
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

    /** True if the index lives on disk (and survives a restart); before it is opened, if it is to. */
    boolean persistent() {
        return opened ? files.persistent : files.onDisk();
    }

    /** Throws away every document and reads the whole log again. */
    void rebuild() throws IOException {
        files.writer.deleteAll();
        stale = true;
        resetPosition();
        catchUp();
        commit();
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
        stale = true;
        clearPosition();
        undone.startOver();
    }

    /**
     * Brings the index level with the log: drops everything when the log is not the one it was built
     * from (deleted, or deleted and written again), deletes the documents of entries trimmed or
     * replaced since, then indexes the entries appended since. When an undo record it reads changes
     * which set or clear records count, the index is built again from the log (a rare path: a memory
     * undid a set() or clear() whose state write failed).
     */
    void catchUp() throws IOException {
        long storeNext = store.nextIndex(sessionId);
        boolean changed = false;
        if (storeNext < next || (next > 0 && !lastEntryStillThere())) {
            files.writer.deleteAll();
            resetPosition();
            changed = true;
            stale = true;
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
        if (changed) {
            if (uncommitted >= COMMIT_EVERY) {
                commit();
            }
        }
    }

    /** Indexes the entries from {@code next} up to {@code storeNext} (or further when the log grew). True if it read any. */
    private boolean readLog(long storeNext) throws IOException {
        boolean changed = false;
        long from = Math.max(next, first);
        while (from < storeNext) {
            List<Entry> batch = store.read(sessionId, from, READ_BATCH);
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
                stale = true;
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
        long previous = read(Long.MAX_VALUE, searcher -> MessageDocuments.newestBefore(searcher, index));
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
        Document doc = read(Long.MAX_VALUE, searcher -> MessageDocuments.tagged(searcher, tag));
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
        stale = true;
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
            if (model != null) {
                // its embeddings come later, from the background (see addVectors)
                unembedded.put(PendingVectors.Pending.of(entry, turns.get(i), texts.get(i)));
            }
            pendingFrom = Math.min(pendingFrom, turns.get(i));
        }
        uncommitted += pending.size();
        pending.clear();
        texts.clear();
        turns.clear();
        turnIds.clear();
    }

    /** The messages whose embeddings are still to come (always none without a model). */
    private final PendingVectors unembedded = new PendingVectors();
    /** From a restored commit: the entries from there on whose embeddings must be made again (-1: none). */
    private long requeueFrom = -1;
    /** A background task for this index is queued or running (set and cleared under {@link #lock}). */
    boolean scheduled;
    /** The queued task, while it has not started (it may then be started at once); under {@link #lock}. */
    java.util.concurrent.Future<?> embedding;

    /** The attempts of a request the index holds documents of, in the order they started. */
    private List<String> attemptsInIndex(String request) throws IOException {
        return read(Long.MAX_VALUE, searcher -> MessageDocuments.attempts(searcher, request));
    }

    /** Deletes the documents (text and embeddings) of the entries {@code from} to {@code to}, inclusive. */
    private void deleteEntries(long from, long to) throws IOException {
        files.writer.deleteDocuments(LongPoint.newRangeQuery(MessageDocuments.ENTRY, from, to));
        unembedded.drop(from, to);
        stale = true;
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
        stale = true;
        Map<Long, Long> turns = read(Long.MAX_VALUE, searcher -> MessageDocuments.turnsFrom(searcher, from));
        unembedded.requeue(store, sessionId, turns, from, next);
    }

    /** True if messages await their embeddings. */
    boolean hasPendingVectors() {
        return !unembedded.isEmpty();
    }

    /** The oldest messages awaiting their embeddings, at most {@link PendingVectors#EMBED_BATCH}. */
    List<PendingVectors.Pending> pendingBatch() {
        return unembedded.batch();
    }

    /** The embeddings of the batch's messages ({@link PendingVectors#embed}); runs without {@link #lock}. */
    List<float[][]> embed(List<PendingVectors.Pending> batch) {
        return PendingVectors.embed(model, batch);
    }

    /**
     * Adds the embeddings of the messages of {@code batch} that still await theirs — not deleted (cleared,
     * trimmed, replaced, retried) nor embedded by someone else meanwhile — and wakes the queries waiting
     * for them.
     */
    void addVectors(List<PendingVectors.Pending> batch, List<float[][]> vectors) throws IOException {
        for (int i = 0; i < batch.size(); i++) {
            PendingVectors.Pending message = batch.get(i);
            if (!unembedded.isCurrent(message)) {
                continue;
            }
            Document doc = MessageDocuments.vectors(message, vectors.get(i));
            files.writer.addDocument(doc);
            unembedded.remove(message);
            pendingFrom = Math.min(pendingFrom, message.turn);
        }
        unembedded.added();
        embedded.signalAll();
    }

    /** Records that the background's embedding failed (queries stop waiting for it) and wakes the waiting queries. */
    void embeddingFailed() {
        unembedded.failed = true;
        embedded.signalAll();
    }

    /** True if a message of a turn before {@code before} awaits its embeddings. */
    boolean awaiting(long before) {
        return unembedded.awaiting(before);
    }

    /**
     * Waits, with {@link #lock} released meanwhile, until no message of a turn before {@code before}
     * awaits its embeddings: see {@link PendingVectors#await}.
     */
    boolean awaitVectors(long before, long stallNanos, long maxNanos) throws InterruptedIOException {
        return unembedded.await(before, stallNanos, maxNanos, embedded, () -> scheduled, () -> closed);
    }

    /** Embeds every message still awaiting its embeddings, on the calling thread (which holds {@link #lock}). */
    void embedPending() throws IOException {
        while (!unembedded.isEmpty()) {
            List<PendingVectors.Pending> batch = pendingBatch();
            addVectors(batch, embed(batch));
        }
    }

    /** Writes a commit point with the position in the log (persistent indexes only). */
    void commit() throws IOException {
        if (!files.persistent) {
            uncommitted = 0;
            return;
        }
        long vectors = unembedded.first(next);
        Map<String, String> data = new CommitPoint(next, lastId, turn, turnId, first,
                requeueFrom >= 0 ? Math.min(requeueFrom, vectors) : vectors).data(FORMAT, modelKey);
        files.writer.setLiveCommitData(data.entrySet());
        files.writer.commit();
        uncommitted = 0;
    }

    /**
     * The turns that start before {@code before} and match {@code query}, best first, and with {@code shown}
     * the view's turns (from {@code before} on) that a temporal question gets a dated reference to: see
     * {@link TurnRanking#search}. With {@code shown} the searcher must see the newest documents too.
     */
    List<TurnRanking.Hit> search(String query, float[] queryVector, long before, long[] period, double minRelevance, int limit,
                                 boolean shown) throws IOException {
        return read(shown ? Long.MAX_VALUE : before, searcher -> TurnRanking.search(searcher, vectorScan, analyzer.terms(query),
                queryVector, before, period, minRelevance, limit, similarityFloor, shown));
    }

    private final VectorScan vectorScan = new VectorScan();

    /**
     * A searcher that sees every deletion and every added document of a turn before {@code before}.
     * Refreshing (which writes a small segment) is the dearest part of a query, and the newest turns
     * are usually the ones the memory's view still shows and the query leaves out; so documents added
     * since the last refresh are made visible only once they could be returned.
     */
    private IndexSearcher acquire(long before) throws IOException {
        if (stale || pendingFrom < before) {
            files.searchers.maybeRefreshBlocking();
            stale = false;
            pendingFrom = Long.MAX_VALUE;
        }
        return files.searchers.acquire();
    }

    private interface Read<T> {
        T from(IndexSearcher searcher) throws IOException;
    }

    /** What {@code read} finds with a searcher that sees every document of a turn before {@code before}. */
    private <T> T read(long before, Read<T> read) throws IOException {
        IndexSearcher searcher = acquire(before);
        try {
            return read.from(searcher);
        } finally {
            files.searchers.release(searcher);
        }
    }

    /** Number of messages whose text is indexed (for tests and figures). */
    int documents() throws IOException {
        return count(MessageDocuments.textDocuments(new MatchAllDocsQuery()));
    }

    /** Number of messages whose embeddings are in the index (for tests and figures). */
    int embeddedDocuments() throws IOException {
        return count(new TermQuery(new Term(MessageDocuments.KIND, MessageDocuments.KIND_VECTORS)));
    }

    private int count(Query query) throws IOException {
        return read(Long.MAX_VALUE, searcher -> searcher.count(query));
    }

    /** Commits (persistent indexes) and releases the files. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (files.persistent) {
                commit();
            }
        } finally {
            files.close();
        }
    }

    /**
     * Closes the index after its thread was interrupted (a cancelled request) without committing or
     * deleting anything: an interrupt says nothing of the files. The next use opens the index again at
     * its last commit and catches up from the log.
     */
    void abandon() {
        closed = true;
        files.close();
    }

    /**
     * Closes the index after a failure, deletes its files (when they are this process's own) and opens
     * a new, empty one: the next {@link #catchUp} rebuilds it from the log.
     */
    void recover(Exception cause) {
        LOG.warn("recall index of session {} failed ({}); rebuilding it from the log", sessionId, cause.toString());
        boolean ownFiles = files.persistent;
        files.close();
        if (ownFiles) {
            files.wipe();
        }
        open();
    }
}
