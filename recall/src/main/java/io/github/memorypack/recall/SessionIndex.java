package io.github.memorypack.recall;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileLockInterruptionException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.KStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.NRTCachingDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.ThreadInterruptedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recall index of one session: a Lucene index with one document per user or AI message that
 * has text (its log index, its turn's index and id, the text for BM25) and, with a model, a second
 * document per message with its embeddings, added later (see {@link #addVectors}): {@link #catchUp}
 * indexes the words and leaves the message {@linkplain #pendingBatch pending}, for the background. It is
 * derived from the log and only from the log: {@link #catchUp} brings it level with the store before
 * every search, and anything that does not match the log (a deleted and re-created session, a replaced
 * log, a damaged or foreign index) is thrown away and rebuilt. Every deletion also drops the pending
 * messages it covers, so an embedding that arrives late never brings a deleted message back.
 *
 * <p>Not thread-safe: callers hold {@link #lock} around every call.
 */
final class SessionIndex implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(SessionIndex.class);

    /** Bumped when the document layout changes; an index of another format is rebuilt. */
    static final String FORMAT = "7";
    /** Most query words the lexical search uses (Lucene allows 1,024 clauses in a query). */
    static final int MAX_QUERY_TERMS = 512;
    /** How many messages the lexical (BM25) search brings to the final ranking. */
    static final int LEXICAL_CANDIDATES = 200;
    /** How many messages the semantic search brings to the final ranking. */
    static final int SEMANTIC_CANDIDATES = 100;
    /** How many more lexical matches come from the period a question names. */
    static final int PERIOD_CANDIDATES = 50;
    /** Weight of the words of the message a message answers (the one before it), against its own words. */
    static final double CONTEXT_WEIGHT = 0.5;
    /** Added to the score of a turn from the period the question names. */
    static final double PERIOD_BONUS = 0.25;
    /**
     * A query word in more than this share of the messages of a session of at least {@link #COMMON_MIN_MESSAGES}
     * weighs nothing: the speakers' names, which people say in most lines (on the long-memory benchmark, a share
     * from 0.2 to 0.35 found the same, more evidence than none on both splits, at fewer tokens).
     */
    static final double COMMON_SHARE = 0.35;
    /** Sessions shorter than this keep every word's weight (in a short chat, a word said often is its topic). */
    static final int COMMON_MIN_MESSAGES = 100;
    /** A turn scoring less than this share of the best turn's score is not returned (lexical only). */
    static final double RELATIVE_CUTOFF = 0.6;
    /**
     * The same with a model, where each half's score is relative to its own best turn (see {@link #search}):
     * on the long-memory benchmarks' tuning conversations, 0.6 lost the planted facts whose turn was the
     * second or third nearest (75.0% of them found, against 79.0% at 0.45 and 80.6% at 0.4, which recalled
     * 5 points more of the budget for unanswerable questions).
     */
    static final double HYBRID_RELATIVE_CUTOFF = 0.45;
    /**
     * With a model, a query's own background similarity is the cosine of its this-many-th nearest message:
     * a message counts as similar only by how far its cosine is above that (rescaled to 0-1), so that a question
     * close to everything (the speakers' names, the session's topic) finds nothing special, and a fact
     * paraphrased in other words is found though its cosine is low in absolute terms.
     */
    static final int SEMANTIC_REFERENCE = 10;
    /**
     * The least semantic score (cosine above the query's background, rescaled to 0-1) that makes a turn
     * relevant, as a share of {@code minScore} (the least coverage): at the default minScore 0.3, 0.1 (0.05 and
     * 0.2 were measured: see {@link #HYBRID_RELATIVE_CUTOFF}'s benchmark; 0.2 found 66.3% of the planted facts).
     */
    static final double SEMANTIC_SHARE = 1.0 / 3;
    /** Documents added between two commits of a persistent index (an uncommitted tail is caught up from the log). */
    static final int COMMIT_EVERY = 512;
    private static final int READ_BATCH = 256;
    /** Segments of at least this many vectors first seen by a query get their 8-bit copy built in the background. */
    static final int BACKGROUND_COPY = 2_048;

    private static final String ENTRY = "entry";
    private static final String TURN = "turn";
    private static final String TURN_ID = "turnId";
    private static final String TEXT = "text";
    /** The words of the message before (the question a message answers), for messages that follow another. */
    private static final String CONTEXT = "context";
    /** When the entry was appended (epoch milliseconds): points for a period's range, doc values to read it. */
    private static final String TIME = "time";
    private static final String VECTOR = "vector";
    /**
     * Marks the documents that hold a message's embeddings: added after its text document, once the
     * background has embedded it (they carry its entry, turn, time, request and attempt, not its text).
     */
    private static final String KIND = "kind";
    private static final String KIND_VECTORS = "v";
    /** Messages embedded per call to the model in the background. */
    static final int EMBED_BATCH = 64;
    private static final String TAG = "tag";
    private static final String REQUEST = "request";
    private static final String ATTEMPT = "attempt";
    /** The attempts of its request a document's attempt superseded (so they stay known after a restart). */
    private static final String SUPERSEDED = "superseded";
    /** How many recent turn tags and requests are kept in memory. */
    private static final int RECENT = 1024;

    private static final String KEY_FORMAT = "format";
    private static final String KEY_MODEL = "model";
    private static final String KEY_NEXT = "next";
    private static final String KEY_LAST_ID = "lastId";
    private static final String KEY_TURN = "turn";
    private static final String KEY_TURN_ID = "turnId";
    private static final String KEY_FIRST = "first";
    /** The lowest entry whose embeddings were not yet in the index at the commit (the next entry when none). */
    private static final String KEY_VECTORS = "vectors";

    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when embeddings were added (a query may wait for those of the turns it can return). */
    private final Condition embedded = lock.newCondition();

    private final String sessionId;
    private final SessionStore store;
    private final EmbeddingModel model;
    private final String modelKey;
    private final Path path;
    /** The cosine similarity that counts as no similarity for this model (its unrelated texts' level). */
    private final double similarityFloor;
    /**
     * English stop words plus the function words of conversation (pronouns, question words,
     * auxiliaries): a question's BM25 then ranks by its content words, not by "what", "my" or "do".
     */
    static final CharArraySet STOP_WORDS = new CharArraySet(List.of(
            "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
            "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
            "will", "with", "i", "i'm", "me", "my", "mine", "myself", "we", "us", "our", "ours", "you", "your", "yours",
            "he", "him", "his", "she", "her", "hers", "its", "them", "what", "what's", "which", "who", "who's", "whom",
            "whose", "when", "where", "why", "how", "do", "does", "did", "done", "am", "been", "being", "have", "has",
            "had", "can", "could", "would", "should", "shall", "may", "might", "must", "again", "about", "from",
            "up", "down", "out", "off", "over", "any", "some", "all", "so", "too", "very", "just", "also", "than",
            "those", "here", "now", "please", "remind", "tell", "know", "again", "get", "got", "one", "ones"), true);

    /**
     * EnglishAnalyzer's chain with Krovetz's stemmer instead of Porter's: KStem turns a word into a
     * dictionary word and conflates less ("university" and "universe" stay apart); on the long-memory
     * benchmark it found as much or more evidence with fewer recalled tokens on both splits.
     */
    private final Analyzer analyzer = new Analyzer() {
        @Override
        protected TokenStreamComponents createComponents(String field) {
            StandardTokenizer source = new StandardTokenizer();
            TokenStream result = new EnglishPossessiveFilter(source);
            result = new LowerCaseFilter(result);
            result = new StopFilter(result, STOP_WORDS);
            return new TokenStreamComponents(source, new KStemFilter(result));
        }
    };

    private Directory directory;
    private IndexWriter writer;
    private SearcherManager searchers;
    private boolean persistent;
    boolean closed;

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
     * Opens (or creates) the index of a session. {@code path} {@code null} keeps it in memory. A
     * persistent index that cannot be opened (damaged, another format or model, locked by another
     * process) is rebuilt, or, when locked, kept in memory for this process.
     */
    SessionIndex(String sessionId, SessionStore store, EmbeddingModel model, String modelKey, Path path) {
        this.sessionId = sessionId;
        this.store = store;
        this.model = model;
        this.modelKey = modelKey;
        this.path = path;
        // LangChain4j's own class of the default model makes the same vectors: the same floor
        // (model first: without the optional artifact, QuietOnnxModel cannot be loaded, lexical-only needs no floor)
        this.similarityFloor = model == null ? 0 : model instanceof QuietOnnxModel
                ? ((QuietOnnxModel) model).similarityFloor()
                : model.getClass().getName().equals(RecallContentRetriever.DEFAULT_MODEL_CLASS) ? QuietOnnxModel.MINILM_FLOOR : 0;
        open();
    }

    private void open() {
        if (path == null) {
            openInMemory();
            return;
        }
        try {
            Files.createDirectories(path);
            directory = new NRTCachingDirectory(FSDirectory.open(path), 8.0, 64.0);
            Map<String, String> data = verifiedCommitData(directory);
            if (data != null && !(FORMAT.equals(data.get(KEY_FORMAT)) && modelKey.equals(data.get(KEY_MODEL)))) {
                LOG.info("recall index of session {} was built with another format or model; rebuilding it from the log",
                        sessionId);
                data = null;
            }
            IndexWriterConfig config = config().setOpenMode(data == null
                    ? IndexWriterConfig.OpenMode.CREATE : IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
            writer = new IndexWriter(directory, config);
            searchers = new SearcherManager(writer, null);
            persistent = true;
            if (data != null) {
                restore(data);
            } else {
                resetPosition();
                commit();
            }
        } catch (LockObtainFailedException e) {
            LOG.warn("recall index {} is in use by another process or another retriever on the same folder (share one"
                    + " retriever per store); session {} gets an in-memory index in this one",
                    path, sessionId);
            closeQuietly();
            openInMemory();
        } catch (IOException | RuntimeException e) {
            if (interrupted(e)) {
                // a cancelled request: the files are not at fault; the next use opens them again
                closed = true;
                closeQuietly();
                Thread.currentThread().interrupt();
                throw e instanceof IOException ? new UncheckedIOException("opening the recall index " + path
                        + " was interrupted", (IOException) e) : (RuntimeException) e;
            }
            LOG.warn("recall index {} of session {} could not be opened ({}); rebuilding it from the log",
                    path, sessionId, e.toString());
            closeQuietly();
            wipe();
            try {
                directory = new NRTCachingDirectory(FSDirectory.open(path), 8.0, 64.0);
                writer = new IndexWriter(directory, config().setOpenMode(IndexWriterConfig.OpenMode.CREATE));
                searchers = new SearcherManager(writer, null);
                persistent = true;
                resetPosition();
                commit();
            } catch (IOException again) {
                throw new UncheckedIOException("could not create the recall index " + path, again);
            }
        }
    }

    /**
     * The user data of the index's last commit after checking every file's checksum, or {@code null}
     * when there is no index yet.
     */
    private static Map<String, String> verifiedCommitData(Directory directory) throws IOException {
        if (!DirectoryReader.indexExists(directory)) {
            return null;
        }
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                leaf.reader().checkIntegrity();
            }
            return new HashMap<>(reader.getIndexCommit().getUserData());
        }
    }

    private void openInMemory() {
        try {
            directory = new ByteBuffersDirectory();
            writer = new IndexWriter(directory, config());
            searchers = new SearcherManager(writer, null);
            persistent = false;
            resetPosition();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private IndexWriterConfig config() {
        // a merged segment's vectors are decoded by the merge thread before searchers see the segment,
        // so that no query pays for decoding the vectors of thousands of messages at once
        IndexWriterConfig config = new IndexWriterConfig(analyzer).setCommitOnClose(false);
        return model == null ? config : config.setMergedSegmentWarmer(reader -> vectors(reader, true));
    }

    private void restore(Map<String, String> data) {
        next = Long.parseLong(data.getOrDefault(KEY_NEXT, "0"));
        lastId = data.get(KEY_LAST_ID);
        turn = Long.parseLong(data.getOrDefault(KEY_TURN, "-1"));
        turnId = data.get(KEY_TURN_ID);
        first = Long.parseLong(data.getOrDefault(KEY_FIRST, "0"));
        long vectors = Long.parseLong(data.getOrDefault(KEY_VECTORS, Long.toString(next)));
        // the messages indexed before the commit whose embeddings were still to come: embedded again by
        // the first catch-up (which may read the store; the constructor does not)
        requeueFrom = model != null && vectors < next ? vectors : -1;
    }

    private void resetPosition() {
        next = 0;
        lastId = null;
        turn = -1;
        turnId = null;
        first = 0;
        previousText = null;
        contextOf.clear();
        turnsByTag.clear();
        attemptsByRequest.clear();
        unembedded.clear();
        requeueFrom = -1;
        embeddingFailed = false;
    }

    /** True if the index lives on disk (and survives a restart). */
    boolean persistent() {
        return persistent;
    }

    /** Throws away every document and reads the whole log again. */
    void rebuild() throws IOException {
        writer.deleteAll();
        stale = true;
        resetPosition();
        catchUp();
        commit();
    }

    /**
     * Brings the index level with the log: drops everything when the log is not the one it was built
     * from (deleted, or deleted and written again), deletes the documents of entries trimmed or
     * replaced since, then indexes the entries appended since.
     */
    void catchUp() throws IOException {
        long storeNext = store.nextIndex(sessionId);
        boolean changed = false;
        if (storeNext < next || (next > 0 && !lastEntryStillThere())) {
            writer.deleteAll();
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
        long from = Math.max(next, first);
        while (from < storeNext) {
            List<Entry> batch = store.read(sessionId, from, READ_BATCH);
            if (batch.isEmpty()) {
                break;
            }
            add(batch);
            changed = true;
            Entry last = batch.get(batch.size() - 1);
            next = last.index() + 1;
            lastId = last.id();
            from = next;
        }
        if (changed) {
            if (uncommitted >= COMMIT_EVERY) {
                commit();
            }
        }
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
     * that turn's user message, however requests interleaved.
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
                    deleteEntries(Long.MIN_VALUE, entry.index());
                    turn = -1;
                    turnId = null;
                    previousText = null;
                    turnsByTag.clear();
                } else if (LogFormat.SET.equals(record)) {
                    for (long[] range : LogFormat.superseded(message)) {
                        deleteEntries(range[0], range[1]);
                    }
                }
                stale = true;
                continue;
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
                entryTurn = tagged.turn;
                entryTurnId = tagged.turnId;
            }
            String text = Turns.searchableText(message);
            if (text == null || entryTurn < 0) {
                continue; // not conversation, or before the first user message (no turn to show it in)
            }
            if (previousText != null) {
                contextOf.put(entry.index(), previousText);
            }
            previousText = text;
            pending.add(entry);
            texts.add(text);
            turns.add(entryTurn);
            turnIds.add(entryTurnId);
        }
        flush(pending, texts, turns, turnIds);
    }

    /** The text of the conversation message indexed last: the context of the next one. */
    private String previousText;
    /** The context (the message before) of entries collected for the next {@link #flush}, by log index. */
    private final Map<Long, String> contextOf = new HashMap<>();

    /** Where a turn starts: its user message's log index and id. */
    private static final class TurnRef {
        final long turn;
        final String turnId;

        TurnRef(long turn, String turnId) {
            this.turn = turn;
            this.turnId = turnId;
        }
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
        IndexSearcher searcher = acquire(Long.MAX_VALUE);
        try {
            ScoreDoc[] docs = searcher.search(new TermQuery(new Term(TAG, tag)), 1).scoreDocs;
            if (docs.length == 0) {
                return null;
            }
            Document doc = searcher.storedFields().document(docs[0].doc, Set.of(TURN, TURN_ID));
            TurnRef found = new TurnRef(doc.getField(TURN).numericValue().longValue(), doc.get(TURN_ID));
            turnsByTag.put(tag, found);
            return found;
        } finally {
            searchers.release(searcher);
        }
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
        writer.deleteDocuments(new BooleanQuery.Builder()
                .add(new TermQuery(new Term(REQUEST, request)), BooleanClause.Occur.MUST)
                .add(new TermQuery(new Term(ATTEMPT, attempt)), BooleanClause.Occur.MUST_NOT).build());
        unembedded.values().removeIf(p -> request.equals(p.request) && !attempt.equals(p.attempt));
        stale = true;
        return true;
    }

    /** The attempts of a request the index holds documents of, in the order they started. */
    private List<String> attemptsInIndex(String request) throws IOException {
        IndexSearcher searcher = acquire(Long.MAX_VALUE);
        try {
            Map<String, Long> starts = new HashMap<>();
            Set<String> superseded = new LinkedHashSet<>();
            StoredFields stored = searcher.storedFields();
            for (ScoreDoc doc : searcher.search(textDocuments(new TermQuery(new Term(REQUEST, request))),
                    Integer.MAX_VALUE).scoreDocs) {
                Document fields = stored.document(doc.doc, Set.of(ATTEMPT, ENTRY, SUPERSEDED));
                starts.merge(fields.get(ATTEMPT), fields.getField(ENTRY).numericValue().longValue(), Math::min);
                superseded.addAll(Arrays.asList(fields.getValues(SUPERSEDED)));
            }
            List<String> attempts = new ArrayList<>(starts.keySet());
            attempts.sort(Comparator.comparingLong(starts::get));
            // attempts whose documents were deleted as superseded started before every attempt still indexed
            superseded.removeAll(attempts);
            attempts.addAll(0, superseded);
            return attempts;
        } finally {
            searchers.release(searcher);
        }
    }

    /** Adds the documents of the entries collected so far (embedding them in one call) and empties the lists. */
    private void flush(List<Entry> pending, List<String> texts, List<Long> turns, List<String> turnIds)
            throws IOException {
        if (pending.isEmpty()) {
            return;
        }
        for (int i = 0; i < pending.size(); i++) {
            Entry entry = pending.get(i);
            Document doc = new Document();
            long index = entry.index();
            doc.add(new LongPoint(ENTRY, index));
            doc.add(new StoredField(ENTRY, index));
            doc.add(new NumericDocValuesField(ENTRY, index));
            doc.add(new LongPoint(TURN, turns.get(i)));
            doc.add(new StoredField(TURN, turns.get(i)));
            doc.add(new StoredField(TURN_ID, turnIds.get(i)));
            doc.add(new BinaryDocValuesField(TURN_ID, new BytesRef(turnIds.get(i))));
            // not stored: the log holds the text, and a query's coverage is read from the postings
            doc.add(new TextField(TEXT, texts.get(i), Field.Store.NO));
            String context = contextOf.remove(index);
            if (context != null) {
                doc.add(new TextField(CONTEXT, context, Field.Store.NO));
            }
            long time = entry.timestamp().toEpochMilli();
            doc.add(new LongPoint(TIME, time));
            doc.add(new NumericDocValuesField(TIME, time));
            doc.add(new NumericDocValuesField(TURN, turns.get(i)));
            String tag = entry.metadata().get(LogFormat.TURN);
            if (tag != null && entry.message() instanceof UserMessage) {
                doc.add(new StringField(TAG, tag, Field.Store.NO));
            }
            String request = entry.metadata().get(LogFormat.REQUEST);
            if (request != null) {
                String attempt = String.valueOf(entry.metadata().get(LogFormat.ATTEMPT));
                doc.add(new StringField(REQUEST, request, Field.Store.NO));
                doc.add(new StringField(ATTEMPT, attempt, Field.Store.YES));
                // the request's other attempts seen so far are all older (only the latest is indexed)
                for (String older : attemptsByRequest.getOrDefault(request, List.of())) {
                    if (!older.equals(attempt)) {
                        doc.add(new StoredField(SUPERSEDED, older));
                    }
                }
            }
            writer.addDocument(doc);
            if (model != null) {
                // its embeddings come later, from the background (see addVectors)
                unembedded.put(index, new Pending(index, turns.get(i), time, texts.get(i), request,
                        request == null ? null : String.valueOf(entry.metadata().get(LogFormat.ATTEMPT))));
            }
            pendingFrom = Math.min(pendingFrom, turns.get(i));
        }
        uncommitted += pending.size();
        pending.clear();
        texts.clear();
        turns.clear();
        turnIds.clear();
    }

    /**
     * Sets each hit's {@link Hit#entries}: the log indices of the messages indexed for its turn, in log
     * order — what recall shows of it (cleared, replaced and retried entries are not among them). One
     * set query for all the hits, the log indices from doc values; the searcher already sees every
     * document of a turn before the search's cutoff.
     */
    private static void attachEntries(IndexSearcher searcher, List<Hit> hits) throws IOException {
        if (hits.isEmpty()) {
            return;
        }
        long[] turns = new long[hits.size()];
        Map<Long, Hit> byTurn = new HashMap<>();
        for (int i = 0; i < turns.length; i++) {
            turns[i] = hits.get(i).turn;
            byTurn.put(turns[i], hits.get(i));
        }
        Weight weight = searcher.createWeight(searcher.rewrite(textDocuments(LongPoint.newSetQuery(TURN, turns))),
                ScoreMode.COMPLETE_NO_SCORES, 1);
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            Scorer scorer = weight.scorer(leaf);
            if (scorer == null) {
                continue;
            }
            Bits live = leaf.reader().getLiveDocs();
            NumericDocValues entries = DocValues.getNumeric(leaf.reader(), ENTRY);
            NumericDocValues turnValues = DocValues.getNumeric(leaf.reader(), TURN);
            DocIdSetIterator docs = scorer.iterator();
            for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
                if ((live == null || live.get(doc)) && entries.advanceExact(doc) && turnValues.advanceExact(doc)) {
                    byTurn.get(turnValues.longValue()).entries.add(entries.longValue());
                }
            }
        }
        for (Hit hit : hits) {
            hit.entries.sort(null);
        }
    }

    /**
     * A message whose text is indexed and whose embeddings are not yet: what the background embeds
     * next, with what its embeddings' document carries.
     */
    static final class Pending {
        final long entry;
        final long turn;
        final long time;
        final String text;
        final String request;
        final String attempt;

        Pending(long entry, long turn, long time, String text, String request, String attempt) {
            this.entry = entry;
            this.turn = turn;
            this.time = time;
            this.text = text;
            this.request = request;
            this.attempt = attempt;
        }
    }

    /** The messages whose embeddings are still to come, by log index (always empty without a model). */
    private final TreeMap<Long, Pending> unembedded = new TreeMap<>();
    /** From a restored commit: the entries from there on whose embeddings must be made again (-1: none). */
    private long requeueFrom = -1;
    /** The last embedding in the background failed: queries do not wait for it until one succeeds. */
    private boolean embeddingFailed;
    /** How many batches of embeddings were added: a query waiting for some sees the background progress. */
    private long vectorBatches;
    /** A background task for this index is queued or running (set and cleared under {@link #lock}). */
    boolean scheduled;
    /** The queued task, while it has not started (it may then be started at once); under {@link #lock}. */
    java.util.concurrent.Future<?> embedding;

    /** Deletes the documents (text and embeddings) of the entries {@code from} to {@code to}, inclusive. */
    private void deleteEntries(long from, long to) throws IOException {
        writer.deleteDocuments(LongPoint.newRangeQuery(ENTRY, from, to));
        if (from <= to) {
            unembedded.subMap(from, true, to, true).clear();
        }
        stale = true;
    }

    /** {@code query} restricted to the documents of messages' text (not their embeddings). */
    private static Query textDocuments(Query query) {
        return new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST)
                .add(new TermQuery(new Term(KIND, KIND_VECTORS)), BooleanClause.Occur.MUST_NOT).build();
    }

    /**
     * After a restart: the messages from {@code from} on whose text is indexed become pending again (their
     * embeddings, which may have been added after the last commit, are deleted and made again).
     */
    private void requeueUnembedded(long from) throws IOException {
        writer.deleteDocuments(new BooleanQuery.Builder()
                .add(new TermQuery(new Term(KIND, KIND_VECTORS)), BooleanClause.Occur.MUST)
                .add(LongPoint.newRangeQuery(ENTRY, from, Long.MAX_VALUE), BooleanClause.Occur.FILTER).build());
        stale = true;
        Map<Long, Long> turns = new HashMap<>();
        IndexSearcher searcher = acquire(Long.MAX_VALUE);
        try {
            StoredFields stored = searcher.storedFields();
            for (ScoreDoc doc : searcher.search(textDocuments(LongPoint.newRangeQuery(ENTRY, from, Long.MAX_VALUE)),
                    Integer.MAX_VALUE).scoreDocs) {
                Document fields = stored.document(doc.doc, Set.of(ENTRY, TURN));
                turns.put(fields.getField(ENTRY).numericValue().longValue(), fields.getField(TURN).numericValue().longValue());
            }
        } finally {
            searchers.release(searcher);
        }
        long at = from;
        while (at < next && !turns.isEmpty()) {
            List<Entry> batch = store.read(sessionId, at, READ_BATCH);
            if (batch.isEmpty()) {
                break;
            }
            for (Entry entry : batch) {
                Long entryTurn = turns.get(entry.index());
                String text = Turns.searchableText(entry.message());
                if (entryTurn != null && text != null) {
                    String request = entry.metadata().get(LogFormat.REQUEST);
                    unembedded.put(entry.index(), new Pending(entry.index(), entryTurn, entry.timestamp().toEpochMilli(),
                            text, request, request == null ? null : String.valueOf(entry.metadata().get(LogFormat.ATTEMPT))));
                }
            }
            at = batch.get(batch.size() - 1).index() + 1;
        }
    }

    /** True if messages await their embeddings. */
    boolean hasPendingVectors() {
        return !unembedded.isEmpty();
    }

    /** The oldest messages awaiting their embeddings, at most {@link #EMBED_BATCH}. */
    List<Pending> pendingBatch() {
        List<Pending> batch = new ArrayList<>(Math.min(EMBED_BATCH, unembedded.size()));
        for (Pending message : unembedded.values()) {
            if (batch.size() == EMBED_BATCH) {
                break;
            }
            batch.add(message);
        }
        return batch;
    }

    /**
     * The embeddings of each message of the batch: its whole text's, then, for a text of several
     * sentences, each sentence's (at most {@link #MAX_SENTENCES}): a fact said in passing between other
     * sentences is found by its own sentence, not diluted by the rest. One call to the model; reads
     * nothing of the index, so it runs without {@link #lock}.
     */
    List<float[][]> embed(List<Pending> batch) {
        List<Integer> counts = new ArrayList<>(batch.size());
        List<TextSegment> segments = new ArrayList<>(batch.size());
        String prefix = model instanceof QuietOnnxModel ? ((QuietOnnxModel) model).passagePrefix() : "";
        for (Pending message : batch) {
            List<String> parts = sentences(message.text);
            counts.add(1 + parts.size());
            segments.add(TextSegment.from(prefix + message.text));
            for (String part : parts) {
                segments.add(TextSegment.from(prefix + part));
            }
        }
        if (segments.isEmpty()) {
            return List.of();
        }
        List<Embedding> embeddings = segments.size() == 1
                ? List.of(model.embed(segments.get(0)).content())
                : model.embedAll(segments).content();
        List<float[][]> vectors = new ArrayList<>(batch.size());
        int at = 0;
        for (int count : counts) {
            float[][] rows = new float[count][];
            for (int r = 0; r < rows.length; r++) {
                rows[r] = embeddings.get(at++).vector();
            }
            vectors.add(rows);
        }
        return vectors;
    }

    /**
     * Adds the embeddings of the messages of {@code batch} that still await theirs — not deleted (cleared,
     * trimmed, replaced, retried) nor embedded by someone else meanwhile — and wakes the queries waiting
     * for them.
     */
    void addVectors(List<Pending> batch, List<float[][]> vectors) throws IOException {
        for (int i = 0; i < batch.size(); i++) {
            Pending message = batch.get(i);
            if (unembedded.get(message.entry) != message) {
                continue;
            }
            Document doc = new Document();
            doc.add(new StringField(KIND, KIND_VECTORS, Field.Store.NO));
            doc.add(new LongPoint(ENTRY, message.entry));
            doc.add(new NumericDocValuesField(ENTRY, message.entry));
            doc.add(new LongPoint(TURN, message.turn));
            doc.add(new NumericDocValuesField(TURN, message.turn));
            doc.add(new LongPoint(TIME, message.time));
            doc.add(new NumericDocValuesField(TIME, message.time));
            if (message.request != null) {
                doc.add(new StringField(REQUEST, message.request, Field.Store.NO));
                doc.add(new StringField(ATTEMPT, message.attempt, Field.Store.NO));
            }
            doc.add(new BinaryDocValuesField(VECTOR, unitBytes(vectors.get(i))));
            writer.addDocument(doc);
            unembedded.remove(message.entry);
            pendingFrom = Math.min(pendingFrom, message.turn);
        }
        embeddingFailed = false;
        vectorBatches++;
        embedded.signalAll();
    }

    /** Records that the background's embedding failed (queries stop waiting for it) and wakes the waiting queries. */
    void embeddingFailed() {
        embeddingFailed = true;
        embedded.signalAll();
    }

    /** True if a message of a turn before {@code before} awaits its embeddings. */
    boolean awaiting(long before) {
        if (unembedded.isEmpty()) {
            return false;
        }
        if (unembedded.firstKey() < before) {
            return true;
        }
        for (Pending message : unembedded.values()) {
            if (message.turn < before) {
                return true; // an answer logged after a newer turn's question
            }
        }
        return false;
    }

    /**
     * Waits, with {@link #lock} released meanwhile, until no message of a turn before {@code before}
     * awaits its embeddings: as long as the background adds a batch at least every {@code stallNanos},
     * for at most {@code maxNanos} in all, and not after an embedding in the background failed.
     *
     * @return true if nothing the query can return awaits its embeddings any more
     * @throws InterruptedIOException if the thread was interrupted while waiting
     */
    boolean awaitVectors(long before, long stallNanos, long maxNanos) throws InterruptedIOException {
        long deadline = System.nanoTime() + maxNanos;
        long batches = vectorBatches;
        long stall = System.nanoTime() + stallNanos;
        while (awaiting(before)) {
            if (embeddingFailed || !scheduled) {
                return false;
            }
            long now = System.nanoTime();
            if (vectorBatches != batches) {
                batches = vectorBatches;
                stall = now + stallNanos;
            }
            long wait = Math.min(deadline, stall) - now;
            if (wait <= 0) {
                return false;
            }
            try {
                embedded.awaitNanos(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the recall index's embeddings");
            }
            if (closed) {
                return false;
            }
        }
        return true;
    }

    /** Embeds every message still awaiting its embeddings, on the calling thread (which holds {@link #lock}). */
    void embedPending() throws IOException {
        while (!unembedded.isEmpty()) {
            List<Pending> batch = pendingBatch();
            addVectors(batch, embed(batch));
        }
    }

    /** Most sentences of one message embedded on their own. */
    static final int MAX_SENTENCES = 6;
    private static final java.util.regex.Pattern SENTENCE_END = java.util.regex.Pattern.compile("(?<=[.!?])\\s+");

    /** The sentences of a text of more than one, each of three words or more (none for a single sentence). */
    static List<String> sentences(String text) {
        String[] parts = SENTENCE_END.split(text.strip());
        List<String> sentences = new ArrayList<>();
        if (parts.length < 2) {
            return sentences;
        }
        for (String part : parts) {
            if (part.split("\\s+").length >= 3 && sentences.size() < MAX_SENTENCES) {
                sentences.add(part);
            }
        }
        return sentences.size() < 2 ? List.of() : sentences;
    }

    /** Writes a commit point with the position in the log (persistent indexes only). */
    void commit() throws IOException {
        if (!persistent) {
            uncommitted = 0;
            return;
        }
        Map<String, String> data = new LinkedHashMap<>();
        data.put(KEY_FORMAT, FORMAT);
        data.put(KEY_MODEL, modelKey);
        data.put(KEY_NEXT, Long.toString(next));
        if (lastId != null) {
            data.put(KEY_LAST_ID, lastId);
        }
        data.put(KEY_TURN, Long.toString(turn));
        if (turnId != null) {
            data.put(KEY_TURN_ID, turnId);
        }
        data.put(KEY_FIRST, Long.toString(first));
        long vectors = unembedded.isEmpty() ? next : unembedded.firstKey();
        data.put(KEY_VECTORS, Long.toString(requeueFrom >= 0 ? Math.min(requeueFrom, vectors) : vectors));
        writer.setLiveCommitData(data.entrySet());
        writer.commit();
        uncommitted = 0;
    }

    /** One candidate turn: where it starts in the log, its user message's id, and its scores. */
    static final class Hit {
        final long turn;
        String turnId;
        /** The log indices of the turn's indexed messages, in log order. */
        final List<Long> entries = new ArrayList<>();
        double fused;
        double coverage;
        double semantic;

        Hit(long turn) {
            this.turn = turn;
        }
    }

    /**
     * The turns that start before {@code before} and match {@code query}, best first.
     *
     * <p>Candidates: the {@link #LEXICAL_CANDIDATES} best messages by BM25 (over a message's own text,
     * and at a lower weight over the message it answers), and with a model the
     * {@link #SEMANTIC_CANDIDATES} most similar by cosine; with a {@code period}, also the best lexical
     * matches among the messages of that time. Each turn is then scored from its best message: its
     * lexical coverage (the share of the query's BM25 IDF weight — computed over this session, so words
     * said in most of its messages, such as the speakers' names, weigh little — that the message
     * holds), and with a model its semantic score: its best cosine similarity (a message's own or one of
     * its sentences') above the query's background, the cosine of its {@link #SEMANTIC_REFERENCE}th
     * nearest message (or the model's similarity floor, if higher), rescaled to 0-1. Lexical only, the
     * final score is the coverage; with a model, each half is divided by its best turn's and the final
     * score is the larger of the two plus a tenth of the smaller, divided by 1.1 (the best lexical and the
     * best semantic turn both score about 1: neither half's scale drowns the other). Plus {@link #PERIOD_BONUS} for a
     * turn of the period. A turn is kept when it is relevant on its own — coverage at least
     * {@code minRelevance}, or a semantic score at least {@link #SEMANTIC_SHARE} of it; the caller keeps those
     * whose score is at least {@link #RELATIVE_CUTOFF} ({@link #HYBRID_RELATIVE_CUTOFF} with a model) of
     * the best turn's, so that an unrelated question gets little or nothing back and the budget goes to
     * the best turns.
     *
     * @param queryVector the query's embedding, or {@code null} for lexical only
     * @param period      the time the question asks about (epoch milliseconds, inclusive), or {@code null}
     */
    List<Hit> search(String query, float[] queryVector, long before, long[] period, double minRelevance, int limit)
            throws IOException {
        IndexSearcher searcher = acquire(before);
        try {
            Query beforeFilter = LongPoint.newRangeQuery(TURN, Long.MIN_VALUE, before - 1);
            Map<Integer, Double> similarity = new HashMap<>();
            List<String> present = new ArrayList<>();
            Map<String, Double> queryTerms = idf(searcher, terms(query), present);
            List<Integer> candidates = new ArrayList<>();
            double floor = similarityFloor;
            double semanticGate = SEMANTIC_SHARE * minRelevance;
            if (!present.isEmpty()) {
                // only the words the session used match anything; a long pasted text is held to the
                // rarest of them, under Lucene's clause limit
                if (present.size() > MAX_QUERY_TERMS) {
                    present.sort(Comparator.comparingDouble((String term) -> -queryTerms.get(term)));
                    present = present.subList(0, MAX_QUERY_TERMS);
                }
                BooleanQuery.Builder terms = new BooleanQuery.Builder();
                for (String term : present) {
                    terms.add(new TermQuery(new Term(TEXT, term)), BooleanClause.Occur.SHOULD);
                    terms.add(new BoostQuery(new TermQuery(new Term(CONTEXT, term)), (float) CONTEXT_WEIGHT),
                            BooleanClause.Occur.SHOULD);
                }
                Query words = terms.build();
                Query lexical = new BooleanQuery.Builder().add(words, BooleanClause.Occur.MUST)
                        .add(beforeFilter, BooleanClause.Occur.FILTER).build();
                candidates.addAll(ranked(searcher.search(lexical, LEXICAL_CANDIDATES).scoreDocs));
                if (period != null) {
                    Query then = new BooleanQuery.Builder().add(words, BooleanClause.Occur.MUST)
                            .add(beforeFilter, BooleanClause.Occur.FILTER)
                            .add(LongPoint.newRangeQuery(TIME, period[0], period[1]), BooleanClause.Occur.FILTER).build();
                    candidates.addAll(ranked(searcher.search(then, PERIOD_CANDIDATES).scoreDocs));
                }
            }
            if (queryVector != null) {
                ScoreDoc[] near = nearest(searcher, SegmentVectors.unit(queryVector), before, similarity);
                if (near.length > 0) {
                    floor = Math.max(floor, near[Math.min(SEMANTIC_REFERENCE, near.length) - 1].score);
                }
                candidates.addAll(ranked(near));
                candidates.addAll(textsOf(searcher, near));
            }
            Map<Long, List<Integer>> docsOfTurn = new HashMap<>();
            Map<Long, Hit> hits = group(candidates, searcher, docsOfTurn);
            double queryWeight = 0;
            for (double weight : queryTerms.values()) {
                queryWeight += weight;
            }
            Map<Integer, Double> covered = queryWeight > 0 ? covered(searcher, TEXT, queryTerms, docsOfTurn) : Map.of();
            Map<Integer, Double> context = queryWeight > 0 ? covered(searcher, CONTEXT, queryTerms, docsOfTurn) : Map.of();
            List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
            List<Hit> scored = new ArrayList<>();
            for (Hit hit : hits.values()) {
                double coverage = 0;
                double cosine = 0;
                boolean inPeriod = false;
                for (int docId : docsOfTurn.get(hit.turn)) {
                    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
                    if (hit.turnId == null) {
                        BinaryDocValues turnIds = DocValues.getBinary(leaf.reader(), TURN_ID);
                        if (turnIds.advanceExact(docId - leaf.docBase)) {
                            hit.turnId = turnIds.binaryValue().utf8ToString();
                        }
                    }
                    if (period != null) {
                        NumericDocValues times = DocValues.getNumeric(leaf.reader(), TIME);
                        if (times.advanceExact(docId - leaf.docBase)) {
                            long time = times.longValue();
                            inPeriod |= time >= period[0] && time <= period[1];
                        }
                    }
                    if (queryWeight > 0) {
                        double own = covered.getOrDefault(docId, 0.0);
                        double around = Math.max(0, context.getOrDefault(docId, 0.0) - own);
                        coverage = Math.max(coverage, (own + CONTEXT_WEIGHT * around) / queryWeight);
                    }
                    cosine = Math.max(cosine, similarity.getOrDefault(docId, 0.0));
                }
                // the query's background similarity counts as none: above it, rescaled to 0-1
                double semantic = queryVector == null ? 0 : Math.max(0, (cosine - floor) / (1 - floor));
                if (coverage < minRelevance && (queryVector == null || semantic < semanticGate)) {
                    continue;
                }
                hit.coverage = coverage;
                hit.semantic = semantic;
                hit.fused = coverage + (inPeriod ? PERIOD_BONUS : 0);
                scored.add(hit);
            }
            if (queryVector != null) {
                double bestCoverage = 0;
                double bestSemantic = 0;
                for (Hit hit : scored) {
                    bestCoverage = Math.max(bestCoverage, hit.coverage);
                    bestSemantic = Math.max(bestSemantic, hit.semantic >= semanticGate ? hit.semantic : 0);
                }
                for (Hit hit : scored) {
                    double lexical = bestCoverage > 0 ? hit.coverage / bestCoverage : 0;
                    double semantic = bestSemantic > 0 && hit.semantic >= semanticGate ? hit.semantic / bestSemantic : 0;
                    // the best turn of either half scores about 1 (at most 1 but for the period's bonus)
                    double bonus = hit.fused - hit.coverage;
                    hit.fused = (Math.max(lexical, semantic) + 0.1 * Math.min(lexical, semantic) + bonus) / 1.1;
                }
            }
            scored.sort(Comparator.comparingDouble((Hit h) -> -h.fused).thenComparingLong(h -> -h.turn));
            List<Hit> result = new ArrayList<>(scored.subList(0, Math.min(limit, scored.size())));
            attachEntries(searcher, result);
            return result;
        } finally {
            searchers.release(searcher);
        }
    }

    /**
     * For each candidate message, the summed weight of the query terms it contains: read from each
     * term's postings (the text was indexed by the same analyzer), not from stored text.
     */
    private static Map<Integer, Double> covered(IndexSearcher searcher, String field, Map<String, Double> queryTerms,
                                                Map<Long, List<Integer>> docsOfTurn) throws IOException {
        List<Integer> candidates = new ArrayList<>();
        for (List<Integer> docs : docsOfTurn.values()) {
            candidates.addAll(docs);
        }
        candidates.sort(null);
        Map<Integer, Double> covered = new HashMap<>();
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < candidates.size()) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(candidates.get(i), leaves));
            int end = leaf.docBase + leaf.reader().maxDoc();
            int from = i;
            while (i < candidates.size() && candidates.get(i) < end) {
                i++;
            }
            Terms terms = leaf.reader().terms(field);
            if (terms == null) {
                continue;
            }
            TermsEnum termsEnum = terms.iterator();
            for (Map.Entry<String, Double> term : queryTerms.entrySet()) {
                if (!termsEnum.seekExact(new BytesRef(term.getKey()))) {
                    continue;
                }
                PostingsEnum postings = termsEnum.postings(null, PostingsEnum.NONE);
                for (int c = from; c < i; c++) {
                    int doc = candidates.get(c) - leaf.docBase;
                    int at = postings.docID() < doc ? postings.advance(doc) : postings.docID();
                    if (at == doc) {
                        covered.merge(candidates.get(c), term.getValue(), Double::sum);
                    }
                }
            }
        }
        return covered;
    }

    /**
     * The {@link #SEMANTIC_CANDIDATES} messages (of turns before {@code before}) most similar to {@code query},
     * by exact cosine similarity over every indexed message: an approximate (HNSW) search missed
     * too many of the right turns in a log that grows a turn at a time. The result is exactly that of
     * computing every float product; {@link SegmentVectors#scan} computes it only for the vectors whose
     * 8-bit estimate could enter. Their similarities go into {@code similarity}.
     */
    private ScoreDoc[] nearest(IndexSearcher searcher, float[] query, long before, Map<Integer, Double> similarity)
            throws IOException {
        PriorityQueue<ScoreDoc> best = new PriorityQueue<>(SEMANTIC_CANDIDATES + 1,
                Comparator.comparingDouble(d -> d.score));
        SegmentVectors.QueryVector prepared = new SegmentVectors.QueryVector(query);
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            SegmentVectors segment = vectors(leaf.reader(), false);
            if (sums.length < segment.size()) {
                sums = new int[segment.size()];
            }
            segment.scan(prepared, before, leaf.reader().getLiveDocs(), leaf.docBase, best, SEMANTIC_CANDIDATES, sums);
        }
        ScoreDoc[] top = new ScoreDoc[best.size()];
        for (int i = top.length - 1; i >= 0; i--) {
            top[i] = best.poll();
            similarity.put(top[i].doc, (double) top[i].score);
        }
        return top;
    }

    /** The first pass's buffer of {@link SegmentVectors#scan}, reused by every query (queries hold {@link #lock}). */
    private int[] sums = new int[0];

    private final Map<IndexReader.CacheKey, SegmentVectors> segmentVectors = new ConcurrentHashMap<>();

    /**
     * The segment's vectors, decoded on first use and cached until the segment is closed. Its 8-bit
     * copy is built at once when {@code wait} (the merge thread, already off the request path) or
     * the segment is small; otherwise by a background thread, and queries until then compute every
     * float product (the same result, a few milliseconds slower).
     */
    private SegmentVectors vectors(LeafReader reader, boolean wait) throws IOException {
        IndexReader.CacheHelper helper = reader.getCoreCacheHelper();
        SegmentVectors cached = helper == null ? null : segmentVectors.get(helper.getKey());
        if (cached != null) {
            return cached;
        }
        BinaryDocValues values = reader.getBinaryDocValues(VECTOR);
        NumericDocValues turnValues = reader.getNumericDocValues(TURN);
        // a message has one row per embedded text (itself, its sentences): several rows of one document
        int[] docs = new int[0];
        long[] turns = new long[0];
        float[] flat = new float[0];
        int dimension = 0;
        int count = 0;
        if (values != null && turnValues != null) {
            for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
                BytesRef bytes = values.binaryValue();
                ByteBuffer buffer = ByteBuffer.wrap(bytes.bytes, bytes.offset, bytes.length).order(ByteOrder.LITTLE_ENDIAN);
                int own = buffer.getInt();
                if (count == 0) {
                    dimension = own;
                    int capacity = reader.maxDoc() * 2;
                    docs = new int[capacity];
                    turns = new long[capacity];
                    flat = new float[capacity * dimension];
                }
                turnValues.advanceExact(doc);
                int rows = own == dimension ? (bytes.length - Integer.BYTES) / (dimension * Float.BYTES) : 0;
                for (int r = 0; r < rows; r++) {
                    if (count == docs.length) {
                        docs = Arrays.copyOf(docs, count * 2);
                        turns = Arrays.copyOf(turns, count * 2);
                        flat = Arrays.copyOf(flat, count * 2 * dimension);
                    }
                    docs[count] = doc;
                    turns[count] = turnValues.longValue();
                    buffer.asFloatBuffer().get(flat, count * dimension, dimension);
                    buffer.position(buffer.position() + dimension * Float.BYTES);
                    count++;
                }
            }
        }
        SegmentVectors segment = new SegmentVectors(Arrays.copyOf(docs, count), Arrays.copyOf(turns, count), dimension,
                Arrays.copyOf(flat, count * dimension));
        if (wait || count < BACKGROUND_COPY) {
            segment.buildCopy();
        } else {
            CompletableFuture.runAsync(segment::buildCopy);
        }
        if (helper != null) {
            IndexReader.CacheKey key = helper.getKey();
            if (segmentVectors.putIfAbsent(key, segment) == null) {
                helper.addClosedListener(segmentVectors::remove);
            }
        }
        return segment;
    }

    /** The rows as unit vectors one after the other, after their dimension (an int). */
    private static BytesRef unitBytes(float[][] rows) {
        int dimension = rows[0].length;
        ByteBuffer bytes = ByteBuffer.allocate(Integer.BYTES + rows.length * dimension * Float.BYTES)
                .order(ByteOrder.LITTLE_ENDIAN);
        bytes.putInt(dimension);
        for (float[] row : rows) {
            float[] unit = SegmentVectors.unit(row);
            for (int d = 0; d < dimension; d++) {
                bytes.putFloat(d < unit.length ? unit[d] : 0);
            }
        }
        return new BytesRef(bytes.array());
    }

    /** The text documents of the messages whose embeddings' documents are {@code docs} (one query). */
    private static List<Integer> textsOf(IndexSearcher searcher, ScoreDoc[] docs) throws IOException {
        if (docs.length == 0) {
            return List.of();
        }
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        long[] entries = new long[docs.length];
        int count = 0;
        for (ScoreDoc doc : docs) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc.doc, leaves));
            NumericDocValues values = DocValues.getNumeric(leaf.reader(), ENTRY);
            if (values.advanceExact(doc.doc - leaf.docBase)) {
                entries[count++] = values.longValue();
            }
        }
        return ranked(searcher.search(textDocuments(LongPoint.newSetQuery(ENTRY, Arrays.copyOf(entries, count))),
                docs.length).scoreDocs);
    }

    /** The document ids of {@code docs}, best first. */
    private static List<Integer> ranked(ScoreDoc[] docs) {
        List<Integer> ranked = new ArrayList<>(docs.length);
        for (ScoreDoc doc : docs) {
            ranked.add(doc.doc);
        }
        return ranked;
    }

    /**
     * A searcher that sees every deletion and every added document of a turn before {@code before}.
     * Refreshing (which writes a small segment) is the dearest part of a query, and the newest turns
     * are usually the ones the memory's view still shows and the query leaves out; so documents added
     * since the last refresh are made visible only once they could be returned.
     */
    private IndexSearcher acquire(long before) throws IOException {
        if (stale || pendingFrom < before) {
            searchers.maybeRefreshBlocking();
            stale = false;
            pendingFrom = Long.MAX_VALUE;
        }
        return searchers.acquire();
    }

    /**
     * The candidate turns (from doc values: no stored field is read), and which candidate messages
     * belong to which turn.
     */
    private static Map<Long, Hit> group(List<Integer> docs, IndexSearcher searcher, Map<Long, List<Integer>> docsOfTurn)
            throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        Map<Long, Hit> hits = new HashMap<>();
        for (int docId : docs) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
            NumericDocValues turns = DocValues.getNumeric(leaf.reader(), TURN);
            if (!turns.advanceExact(docId - leaf.docBase)) {
                continue;
            }
            long turn = turns.longValue();
            List<Integer> members = docsOfTurn.computeIfAbsent(turn, t -> new ArrayList<>());
            if (!members.contains(docId)) {
                members.add(docId);
            }
            hits.computeIfAbsent(turn, Hit::new);
        }
        return hits;
    }

    /** BM25's IDF of each term, as Lucene computes it for this index; the terms the index has go to {@code present}. */
    private static Map<String, Double> idf(IndexSearcher searcher, Set<String> terms, List<String> present)
            throws IOException {
        Map<String, Double> weights = new LinkedHashMap<>();
        CollectionStatistics stats = searcher.collectionStatistics(TEXT);
        long docs = stats == null ? 0 : stats.docCount();
        // a word the session never used weighs half of what a word used once would: reworded questions
        // bring new words, which should not bury the one they share, nor be ignored
        double unknown = Math.log(1 + (docs - 1 + 0.5) / 1.5) / 2;
        for (String term : terms) {
            long df = searcher.getIndexReader().docFreq(new Term(TEXT, term));
            // a word in more than COMMON_SHARE of a long session's messages (the speakers' names) weighs
            // nothing: it says nothing about which turn the question is after
            weights.put(term, df == 0 ? unknown : docs >= COMMON_MIN_MESSAGES && df > COMMON_SHARE * docs ? 0.0
                    : Math.log(1 + (docs - df + 0.5) / (df + 0.5)));
            if (df > 0) {
                present.add(term);
            }
        }
        return weights;
    }

    /** The distinct terms the analyzer makes of {@code text}. */
    Set<String> terms(String text) throws IOException {
        Set<String> terms = new LinkedHashSet<>();
        try (TokenStream stream = analyzer.tokenStream(TEXT, text)) {
            CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
            stream.reset();
            while (stream.incrementToken()) {
                terms.add(term.toString());
            }
            stream.end();
        }
        return terms;
    }

    /** Number of documents (for tests and figures). */
    int documents() throws IOException {
        IndexSearcher searcher = acquire(Long.MAX_VALUE);
        try {
            return searcher.count(textDocuments(new MatchAllDocsQuery()));
        } finally {
            searchers.release(searcher);
        }
    }

    /** Number of messages whose embeddings are in the index (for tests and figures). */
    int embeddedDocuments() throws IOException {
        IndexSearcher searcher = acquire(Long.MAX_VALUE);
        try {
            return searcher.count(new TermQuery(new Term(KIND, KIND_VECTORS)));
        } finally {
            searchers.release(searcher);
        }
    }

    /** Commits (persistent indexes) and releases the files. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (persistent) {
                commit();
            }
        } finally {
            closeQuietly();
        }
    }

    private void closeQuietly() {
        for (Closeable closeable : new Closeable[] {searchers, writer, directory}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("closing the recall index of session {}: {}", sessionId, e.toString());
                }
            }
        }
        searchers = null;
        writer = null;
        directory = null;
    }

    /** Deletes the index folder's files (a damaged index); the folder itself stays. */
    private void wipe() {
        try {
            deleteFiles(path);
        } catch (IOException e) {
            throw new UncheckedIOException("could not clear the damaged recall index " + path, e);
        }
    }

    /**
     * True if the folder holds a Lucene index and nothing else: only files, named as Lucene names them
     * ({@code segments_N}, {@code pending_segments_N}, {@code write.lock}, {@code _…} codec files), a
     * {@code segments_N} among them.
     */
    static boolean isIndexFolder(Path folder) throws IOException {
        boolean segments = false;
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || !(name.startsWith("segments_")
                        || name.startsWith("pending_segments_") || name.equals("write.lock") || name.startsWith("_"))) {
                    return false;
                }
                segments |= name.startsWith("segments_");
            }
        }
        return segments;
    }

    /** Deletes the files of an index folder (an index keeps no subfolders); the folder itself stays. */
    static void deleteFiles(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * True if the thread was interrupted or the failure came from an interrupt (Lucene's and NIO's
     * interrupted operations close what they were using, and Lucene may clear the thread's flag).
     */
    static boolean interrupted(Exception e) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof InterruptedException || cause instanceof ClosedByInterruptException
                    || cause instanceof FileLockInterruptionException || cause instanceof InterruptedIOException
                    || cause instanceof ThreadInterruptedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Closes the index after its thread was interrupted (a cancelled request) without committing or
     * deleting anything: an interrupt says nothing of the files. The next use opens the index again at
     * its last commit and catches up from the log.
     */
    void abandon() {
        closed = true;
        closeQuietly();
    }

    /**
     * Closes the index after a failure, deletes its files (when they are this process's own) and opens
     * a new, empty one: the next {@link #catchUp} rebuilds it from the log.
     */
    void recover(Exception cause) {
        LOG.warn("recall index of session {} failed ({}); rebuilding it from the log", sessionId, cause.toString());
        boolean ownFiles = persistent;
        closeQuietly();
        if (ownFiles) {
            wipe();
        }
        open();
    }
}
