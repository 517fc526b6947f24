package io.github.memorypack.recall;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.util.BytesRef;

/**
 * The exact nearest-neighbour scan over one session index's embeddings: each segment's vectors decoded
 * once into a {@link SegmentVectors} (cached until the segment closes), scanned for every query. Used
 * under the index's lock.
 */
final class VectorScan {

    /** Segments of at least this many vectors first seen by a query get their 8-bit copy built in the background. */
    static final int BACKGROUND_COPY = 2_048;

    /**
     * The {@link TurnRanking#SEMANTIC_CANDIDATES} messages (of turns before {@code before}) most similar to {@code query},
     * by exact cosine similarity over every indexed message: an approximate (HNSW) search missed
     * too many of the right turns in a log that grows a turn at a time. The result is exactly that of
     * computing every float product; {@link SegmentVectors#scan} computes it only for the vectors whose
     * 8-bit estimate could enter. Their similarities go into {@code similarity}.
     */
    ScoreDoc[] nearest(IndexSearcher searcher, float[] query, long before, Map<Integer, Double> similarity)
            throws IOException {
        PriorityQueue<ScoreDoc> best = new PriorityQueue<>(TurnRanking.SEMANTIC_CANDIDATES + 1,
                Comparator.comparingDouble(d -> d.score));
        SegmentVectors.QueryVector prepared = new SegmentVectors.QueryVector(query);
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            SegmentVectors segment = vectors(leaf.reader(), false);
            if (sums.length < segment.size()) {
                sums = new int[segment.size()];
            }
            segment.scan(prepared, before, leaf.reader().getLiveDocs(), leaf.docBase, best, TurnRanking.SEMANTIC_CANDIDATES, sums);
        }
        ScoreDoc[] top = new ScoreDoc[best.size()];
        for (int i = top.length - 1; i >= 0; i--) {
            top[i] = best.poll();
            similarity.put(top[i].doc, (double) top[i].score);
        }
        return top;
    }

    /** The first pass's buffer of {@link SegmentVectors#scan}, reused by every query (queries hold their index's lock). */
    private int[] sums = new int[0];

    private final Map<IndexReader.CacheKey, SegmentVectors> segmentVectors = new ConcurrentHashMap<>();

    /**
     * The segment's vectors, decoded on first use and cached until the segment is closed. Its 8-bit
     * copy is built at once when {@code wait} (the merge thread, already off the request path) or
     * the segment is small; otherwise by a background thread, and queries until then compute every
     * float product (the same result, a few milliseconds slower).
     */
    SegmentVectors vectors(LeafReader reader, boolean wait) throws IOException {
        IndexReader.CacheHelper helper = reader.getCoreCacheHelper();
        SegmentVectors cached = helper == null ? null : segmentVectors.get(helper.getKey());
        if (cached != null) {
            return cached;
        }
        BinaryDocValues values = reader.getBinaryDocValues(MessageDocuments.VECTOR);
        NumericDocValues turnValues = reader.getNumericDocValues(MessageDocuments.TURN);
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
    static BytesRef unitBytes(float[][] rows) {
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
}
