package io.github.memorypack.recall;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * The layout of a session's recall index: one document per user or AI message with text (its log
 * index, its turn's index and id, its time, the words of its text and of the message before it, its
 * request and attempt), and with a model a second document per message with its embeddings; the
 * fields' names, how each document is built and the look-ups by stored field. A change of layout bumps
 * {@link SessionIndex#FORMAT}.
 */
final class MessageDocuments {

    static final String ENTRY = "entry";
    static final String TURN = "turn";
    static final String TURN_ID = "turnId";
    static final String TEXT = "text";
    /** The words of the message before (the question a message answers), for messages that follow another. */
    static final String CONTEXT = "context";
    /** When the entry was appended (epoch milliseconds): points for a period's range, doc values to read it. */
    static final String TIME = "time";
    static final String VECTOR = "vector";
    /**
     * Marks the documents that hold a message's embeddings: added after its text document, once the
     * background has embedded it (they carry its entry, turn, time, request and attempt, not its text).
     */
    static final String KIND = "kind";
    static final String KIND_VECTORS = "v";
    static final String TAG = "tag";
    static final String REQUEST = "request";
    static final String ATTEMPT = "attempt";
    /** The attempts of its request a document's attempt superseded (so they stay known after a restart). */
    static final String SUPERSEDED = "superseded";

    private MessageDocuments() {
    }

    /**
     * The document of a message's text: {@code context} is the text of the message before it (or
     * {@code null}), {@code attemptsSeen} the attempts of its request seen so far (only the latest is indexed).
     */
    static Document text(Entry entry, long turn, String turnId, String text, String context, List<String> attemptsSeen) {
        Document doc = new Document();
        long index = entry.index();
        doc.add(new LongPoint(ENTRY, index));
        doc.add(new StoredField(ENTRY, index));
        doc.add(new NumericDocValuesField(ENTRY, index));
        doc.add(new LongPoint(TURN, turn));
        doc.add(new StoredField(TURN, turn));
        doc.add(new StoredField(TURN_ID, turnId));
        doc.add(new BinaryDocValuesField(TURN_ID, new BytesRef(turnId)));
        // not stored: the log holds the text, and a query's coverage is read from the postings
        doc.add(new TextField(TEXT, text, Field.Store.NO));
        if (context != null) {
            doc.add(new TextField(CONTEXT, context, Field.Store.NO));
        }
        long time = entry.timestamp().toEpochMilli();
        doc.add(new LongPoint(TIME, time));
        doc.add(new NumericDocValuesField(TIME, time));
        doc.add(new NumericDocValuesField(TURN, turn));
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
            for (String older : attemptsSeen) {
                if (!older.equals(attempt)) {
                    doc.add(new StoredField(SUPERSEDED, older));
                }
            }
        }
        return doc;
    }

    /** The document of a message's embeddings ({@code rows}: its whole text's, then its sentences'). */
    static Document vectors(PendingVectors.Pending message, float[][] rows) {
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
        doc.add(new BinaryDocValuesField(VECTOR, VectorScan.unitBytes(rows)));
        return doc;
    }

    /** {@code query} restricted to the documents of messages' text (not their embeddings). */
    static Query textDocuments(Query query) {
        return new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST)
                .add(new TermQuery(new Term(KIND, KIND_VECTORS)), BooleanClause.Occur.MUST_NOT).build();
    }

    /** The attempts of a request the index holds documents of, in the order they started. */
    static List<String> attempts(IndexSearcher searcher, String request) throws IOException {
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
    }


    /** The stored turn and turn id of the user message tagged {@code tag}, or {@code null} when none is indexed. */
    static Document tagged(IndexSearcher searcher, String tag) throws IOException {
        ScoreDoc[] docs = searcher.search(new TermQuery(new Term(TAG, tag)), 1).scoreDocs;
        return docs.length == 0 ? null : searcher.storedFields().document(docs[0].doc, Set.of(TURN, TURN_ID));
    }

    /** The log index of the newest message before {@code before} whose text is indexed, or -1. */
    static long newestBefore(IndexSearcher searcher, long before) throws IOException {
        ScoreDoc[] docs = searcher.search(textDocuments(LongPoint.newRangeQuery(ENTRY, Long.MIN_VALUE, before - 1)), 1,
                new Sort(new SortField(ENTRY, SortField.Type.LONG, true))).scoreDocs;
        return docs.length == 0 ? -1
                : searcher.storedFields().document(docs[0].doc, Set.of(ENTRY)).getField(ENTRY).numericValue().longValue();
    }

    /** The turn of each message from log index {@code from} on whose text is indexed, by log index. */
    static Map<Long, Long> turnsFrom(IndexSearcher searcher, long from) throws IOException {
        Map<Long, Long> turns = new HashMap<>();
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc doc : searcher.search(textDocuments(LongPoint.newRangeQuery(ENTRY, from, Long.MAX_VALUE)),
                Integer.MAX_VALUE).scoreDocs) {
            Document fields = stored.document(doc.doc, Set.of(ENTRY, TURN));
            turns.put(fields.getField(ENTRY).numericValue().longValue(), fields.getField(TURN).numericValue().longValue());
        }
        return turns;
    }
}
