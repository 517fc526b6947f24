package io.github.memorypack.recall;

import java.util.Arrays;
import java.util.PriorityQueue;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.util.Bits;

/**
 * The unit vectors of one index segment (segments never change, so they are decoded once), and the
 * exact nearest-neighbour scan over them.
 *
 * <p>The scan returns exactly what computing the float dot product of every vector would, but
 * computes that product only for the few vectors that could enter the result. A first pass scores
 * every vector with an 8-bit copy (a scale per vector, four dimensions packed in one {@code int},
 * stored column by column so that the JIT can vectorize the pass over a quarter of the float
 * vectors' memory) and a proven bound on that copy's error; a vector whose bound cannot beat the
 * least of the best so far is skipped, which is exactly when the exhaustive scan would have left it
 * out. Every other vector is compared with its exact float dot product, in document order, with the
 * same queue operations as the exhaustive scan, so even equal scores come out in the same order.
 *
 * <p>The 8-bit copy is built apart ({@link #buildCopy()}, by a background thread when a large segment
 * is first seen); until then a scan computes every float product. Immutable apart from that copy's
 * one-time publication; {@link #scan} may run on any thread with its own buffers.
 */
final class SegmentVectors {

    /** Above any rounding error of {@link #dot} on unit vectors (a few times 1e-6). */
    static final double DOT_ERROR = 1e-4;
    private static final int LEVELS = 127;
    private static final int OFFSET = 128;
    /** Most dimensions whose 8-bit sums cannot overflow an int (dimension * 255 * 127 < 2^31). */
    private static final int MAX_QUANTIZED_DIMENSION = 65_536;

    /** Each vector's document in the segment, in document order. */
    final int[] docs;
    /** Each vector's turn. */
    final long[] turns;
    /** Floats per vector; a query of another length matches nothing in this segment. */
    final int dimension;
    /** The vectors one after the other, {@link #dimension} floats each. */
    final float[] vectors;

    // the 8-bit copy, once built (null before: the scan then computes every float product)
    private volatile Copy copy;

    /**
     * @param docs       each vector's document, ascending
     * @param turns      each vector's turn
     * @param dimension  floats per vector
     * @param vectors    {@code docs.length * dimension} floats of unit (or zero) vectors
     */
    SegmentVectors(int[] docs, long[] turns, int dimension, float[] vectors) {
        this.docs = docs;
        this.turns = turns;
        this.dimension = dimension;
        this.vectors = vectors;
    }

    /**
     * Builds the 8-bit copy that lets {@link #scan} skip most float products (a few tens of
     * milliseconds for 20,000 vectors of 384 dimensions). Until it is built, scans compute every
     * product; the result is the same. Safe to call from another thread while scans run.
     */
    void buildCopy() {
        if (copy == null && dimension <= MAX_QUANTIZED_DIMENSION && docs.length > 0) {
            copy = new Copy(vectors, docs.length, dimension);
        }
    }

    /** True once {@link #buildCopy()} has finished. */
    boolean hasCopy() {
        return copy != null;
    }

    /**
     * The 8-bit copy: vector i's dimension d is about {@code scales[i] * k} with k in [-127, 127],
     * stored as k + 128 in byte d % 4 of {@code columns[d / 4][i]}; {@code errors[i]} bounds
     * |vector - scale * k| in each dimension and {@code magnitudes[i]} is the sum of |k|.
     */
    private static final class Copy {
        final double[] scales;
        final double[] errors;
        final int[] magnitudes;
        final int[][] columns;

        Copy(float[] vectors, int count, int dimension) {
            scales = new double[count];
            errors = new double[count];
            magnitudes = new int[count];
            columns = new int[(dimension + 3) / 4][count];
            for (int i = 0; i < count; i++) {
                quantize(vectors, i, dimension);
            }
        }

        private void quantize(float[] vectors, int i, int dimension) {
            int from = i * dimension;
            float max = 0;
            for (int d = 0; d < dimension; d++) {
                max = Math.max(max, Math.abs(vectors[from + d]));
            }
            double scale = (double) max / LEVELS;
            double inverse = max == 0 ? 0 : LEVELS / (double) max;
            double error = 0;
            int magnitude = 0;
            for (int c = 0; c < columns.length; c++) {
                int packed = 0;
                for (int b = 0; b < 4; b++) {
                    int d = 4 * c + b;
                    int k = 0; // padding beyond the dimension
                    if (d < dimension) {
                        float v = vectors[from + d];
                        k = Math.max(-LEVELS, Math.min(LEVELS, (int) Math.rint(v * inverse)));
                        // the error bound is taken from the rounded values, whatever the rounding did
                        error = Math.max(error, Math.abs(v - scale * k));
                        magnitude += Math.abs(k);
                    }
                    packed |= (k + OFFSET) << (8 * b);
                }
                columns[c][i] = packed;
            }
            scales[i] = scale;
            errors[i] = error;
            magnitudes[i] = magnitude;
        }
    }

    /** Number of vectors. */
    int size() {
        return docs.length;
    }

    /** A query vector with its 8-bit copy, prepared once per query for every segment. */
    static final class QueryVector {
        final float[] vector;
        // about scale * quantized[d] in each dimension (padded with zeros to a multiple of 4)
        final int[] quantized;
        final double scale;
        final double error;
        final double l1;
        final long sum;

        QueryVector(float[] vector) {
            this.vector = vector;
            double max = 0;
            double l1 = 0;
            for (float v : vector) {
                max = Math.max(max, Math.abs(v));
                l1 += Math.abs(v);
            }
            this.scale = max / LEVELS;
            this.l1 = l1;
            this.quantized = new int[(vector.length + 3) / 4 * 4];
            double error = 0;
            long sum = 0;
            for (int d = 0; d < vector.length; d++) {
                int m = scale == 0 ? 0 : (int) Math.max(-LEVELS, Math.min(LEVELS, Math.round(vector[d] / scale)));
                quantized[d] = m;
                error = Math.max(error, Math.abs(vector[d] - scale * m));
                sum += m;
            }
            this.error = error;
            this.sum = sum;
        }
    }

    /**
     * Offers to {@code best} (a min-queue of at most {@code capacity} by score) every vector of a live
     * document whose turn is before {@code before}, with its exact {@link #dot} as score and
     * {@code docBase + doc} as document, exactly as an exhaustive scan in document order would: add
     * while the queue has room, otherwise add when the score beats the least and then drop the least.
     *
     * @param sums a buffer of at least {@link #size()} ints, overwritten
     * @return how many exact (float) dot products were computed
     */
    int scan(QueryVector query, long before, Bits live, int docBase, PriorityQueue<ScoreDoc> best, int capacity,
              int[] sums) {
        if (dimension != query.vector.length || docs.length == 0) {
            return 0;
        }
        Copy copy = this.copy;
        if (copy != null) {
            approximate(copy, query, sums);
        }
        long offsetSum = OFFSET * query.sum;
        int exact = 0;
        for (int i = 0; i < docs.length; i++) {
            int doc = docs[i];
            if (turns[i] >= before || (live != null && !live.get(doc))) {
                continue;
            }
            if (copy != null && best.size() >= capacity) {
                // |exact - approximate| <= errors[i] * |query|_1 + scales[i] * query.error * sum |k|
                double scale = copy.scales[i];
                double approximate = query.scale * scale * (sums[i] - offsetSum);
                double bound = approximate + copy.errors[i] * query.l1 + scale * query.error * copy.magnitudes[i];
                if (bound + DOT_ERROR <= best.peek().score) {
                    continue; // its exact score cannot beat the least: the exhaustive scan would leave it out
                }
            }
            float dot = dot(vectors, i * dimension, query.vector);
            exact++;
            if (best.size() < capacity || dot > best.peek().score) {
                best.add(new ScoreDoc(docBase + doc, dot));
                if (best.size() > capacity) {
                    best.poll();
                }
            }
        }
        return exact;
    }

    /** {@code sums[i]} = the sum over dimensions of (k + 128) times the query's quantized value. */
    private void approximate(Copy copy, QueryVector query, int[] sums) {
        int count = docs.length;
        Arrays.fill(sums, 0, count, 0);
        int[] q = query.quantized;
        for (int c = 0; c < copy.columns.length; c++) {
            accumulate(sums, copy.columns[c], q[4 * c], q[4 * c + 1], q[4 * c + 2], q[4 * c + 3], count);
        }
    }

    /**
     * One column into the sums: a loop the JIT vectorizes (both arrays at the same index, int
     * arithmetic only).
     */
    private static void accumulate(int[] sums, int[] column, int q0, int q1, int q2, int q3, int count) {
        for (int i = 0; i < count; i++) {
            int packed = column[i];
            sums[i] += (packed & 0xFF) * q0 + ((packed >>> 8) & 0xFF) * q1 + ((packed >>> 16) & 0xFF) * q2
                    + (packed >>> 24) * q3;
        }
    }

    /** {@code vector} scaled to length 1 (a zero vector stays zero). */
    static float[] unit(float[] vector) {
        double norm = 0;
        for (float v : vector) {
            norm += v * v;
        }
        norm = Math.sqrt(norm);
        float[] unit = new float[vector.length];
        for (int i = 0; i < vector.length; i++) {
            unit[i] = norm == 0 ? 0 : (float) (vector[i] / norm);
        }
        return unit;
    }

    /** The dot product of {@code b} and the {@code b.length} floats of {@code a} from {@code from}. */
    static float dot(float[] a, int from, float[] b) {
        int n = b.length;
        float s0 = 0;
        float s1 = 0;
        float s2 = 0;
        float s3 = 0;
        int d = 0;
        for (; d + 3 < n; d += 4) {
            s0 += a[from + d] * b[d];
            s1 += a[from + d + 1] * b[d + 1];
            s2 += a[from + d + 2] * b[d + 2];
            s3 += a[from + d + 3] * b[d + 3];
        }
        for (; d < n; d++) {
            s0 += a[from + d] * b[d];
        }
        return s0 + s1 + s2 + s3;
    }
}
