package io.github.memorypack.recall;

import dev.langchain4j.model.embedding.EmbeddingModel;
import io.github.memorypack.core.SessionStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
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

    // documents added since the last commit (by the feed)
    int uncommitted;
    // the searcher must be refreshed before the next search (documents were deleted)
    boolean stale;
    // lowest turn among documents added since the searcher was last refreshed
    long pendingFrom = Long.MAX_VALUE;

    /** The messages whose embeddings are still to come (always none without a model). */
    private final PendingVectors unembedded = new PendingVectors();
    /** Reads the log into the index: the position in the log, the records, each message's turn and context. */
    private final LogFeed feed;

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
        this.feed = new LogFeed(this, sessionId, store, files, unembedded, model != null);
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
                            feed.restore(data);
                        }

                        @Override
                        public void reset() throws IOException {
                            feed.resetPosition();
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

    /** True if the index lives on disk (and survives a restart); before it is opened, if it is to. */
    boolean persistent() {
        return opened ? files.persistent : files.onDisk();
    }

    /** Throws away every document and reads the whole log again. */
    void rebuild() throws IOException {
        files.writer.deleteAll();
        stale = true;
        feed.resetPosition();
        catchUp();
        commit();
    }

    /**
     * Brings the index level with the log ({@link LogFeed#catchUp}), committing once
     * {@link #COMMIT_EVERY} documents were added since the last commit.
     */
    void catchUp() throws IOException {
        if (feed.catchUp()) {
            if (uncommitted >= COMMIT_EVERY) {
                commit();
            }
        }
    }

    /** A background task for this index is queued or running (set and cleared under {@link #lock}). */
    boolean scheduled;
    /** The queued task, while it has not started (it may then be started at once); under {@link #lock}. */
    java.util.concurrent.Future<?> embedding;

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
        Map<String, String> data = feed.position().data(FORMAT, modelKey);
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

    interface Read<T> {
        T from(IndexSearcher searcher) throws IOException;
    }

    /** What {@code read} finds with a searcher that sees every document of a turn before {@code before}. */
    <T> T read(long before, Read<T> read) throws IOException {
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
