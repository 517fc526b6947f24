package io.github.memorypack.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;
import org.junit.jupiter.api.Test;

/**
 * The pruned vector scan against the exhaustive one it replaces (the float dot product of every
 * vector, offered in document order): the same documents, scores and order, ties included.
 */
class SegmentVectorsTest {

    @Property(tries = 200)
    void should_return_what_the_exhaustive_scan_returns_when_segments_are_random(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 48) int dimension,
            @ForAll @IntRange(min = 1, max = 45) int capacity,
            @ForAll boolean withCopy) {
        // given: up to three segments of random unit vectors, with repeated and zero vectors (equal scores),
        // deleted documents, turns on either side of the cutoff, and a query that is sometimes one of the vectors
        Random random = new Random(seed);
        List<Segment> segments = new ArrayList<>();
        int docBase = 0;
        for (int s = random.nextInt(3) + 1; s > 0; s--) {
            Segment segment = randomSegment(random, dimension, random.nextInt(400), docBase);
            if (withCopy || random.nextBoolean()) {
                segment.built.buildCopy(); // without it (not built yet) the scan computes every float product
            }
            segments.add(segment);
            docBase += segment.maxDoc;
        }
        float[] query = random.nextInt(4) == 0 && segments.get(0).vectors.size() > 0
                ? segments.get(0).vectors.get(random.nextInt(segments.get(0).vectors.size())).clone()
                : unit(random, dimension);
        long before = random.nextInt(4) == 0 ? Long.MAX_VALUE : random.nextInt(500);

        // when
        List<ScoreDoc> pruned = pruned(segments, query, before, capacity);
        List<ScoreDoc> exhaustive = exhaustive(segments, query, before, capacity);

        // then
        assertThat(pruned).hasSameSizeAs(exhaustive);
        for (int i = 0; i < pruned.size(); i++) {
            assertThat(pruned.get(i).doc).as("document %d of %d", i, pruned.size()).isEqualTo(exhaustive.get(i).doc);
            assertThat(pruned.get(i).score).as("score %d of %d", i, pruned.size()).isEqualTo(exhaustive.get(i).score);
        }
    }

    @Test
    void should_compute_few_exact_products_when_segment_is_large() {
        // given: 20,000 random 384-dimension vectors (a 10,000-turn session) and a query close to one of them
        Random random = new Random(7);
        Segment segment = randomSegment(random, 384, 20_000, 0);
        float[] query = segment.vectors.get(12_345).clone();
        query[0] += 0.05f;
        query = SegmentVectors.unit(query);
        segment.built.buildCopy();

        // when
        PriorityQueue<ScoreDoc> best = queue();
        int exact = segment.built.scan(new SegmentVectors.QueryVector(query), Long.MAX_VALUE, segment.live, 0, best,
                TurnRanking.SEMANTIC_CANDIDATES, new int[segment.built.size()]);

        // then: the same 40 as the exhaustive scan, for a few percent of the float products
        assertThat(drain(best)).extracting(d -> d.doc)
                .containsExactlyElementsOf(exhaustive(List.of(segment), query, Long.MAX_VALUE, TurnRanking.SEMANTIC_CANDIDATES)
                        .stream().map(d -> d.doc).toList());
        assertThat(exact).isLessThan(segment.built.size() / 10);
    }

    @Test
    void should_compute_every_product_when_copy_is_not_built_yet() {
        // given
        Segment segment = randomSegment(new Random(5), 16, 500, 0);
        float[] query = SegmentVectors.unit(segment.vectors.get(0).clone());

        // when
        PriorityQueue<ScoreDoc> best = queue();
        int exact = segment.built.scan(new SegmentVectors.QueryVector(query), Long.MAX_VALUE, segment.live, 0, best, 10,
                new int[500]);

        // then
        long live = java.util.Arrays.stream(segment.docs).filter(d -> segment.live == null || segment.live.get(d)).count();
        assertThat(segment.built.hasCopy()).isFalse();
        assertThat(exact).isEqualTo(live);
        assertThat(drain(best)).extracting(d -> d.doc).containsExactlyElementsOf(
                exhaustive(List.of(segment), query, Long.MAX_VALUE, 10).stream().map(d -> d.doc).toList());
    }

    @Test
    void should_find_nothing_when_query_has_another_dimension() {
        // given
        Segment segment = randomSegment(new Random(3), 8, 50, 0);
        PriorityQueue<ScoreDoc> best = queue();

        // when
        int exact = segment.built.scan(new SegmentVectors.QueryVector(unit(new Random(4), 9)), Long.MAX_VALUE, null, 0,
                best, 10, new int[50]);

        // then
        assertThat(best).isEmpty();
        assertThat(exact).isZero();
    }

    /** One segment: its vectors as built and the inputs they were built from. */
    private static final class Segment {
        final SegmentVectors built;
        final List<float[]> vectors;
        final int[] docs;
        final long[] turns;
        final Bits live;
        final int maxDoc;
        final int docBase;

        Segment(SegmentVectors built, List<float[]> vectors, int[] docs, long[] turns, Bits live, int maxDoc, int docBase) {
            this.built = built;
            this.vectors = vectors;
            this.docs = docs;
            this.turns = turns;
            this.live = live;
            this.maxDoc = maxDoc;
            this.docBase = docBase;
        }
    }

    private static Segment randomSegment(Random random, int dimension, int count, int docBase) {
        List<float[]> vectors = new ArrayList<>();
        int[] docs = new int[count];
        long[] turns = new long[count];
        int doc = 0;
        for (int i = 0; i < count; i++) {
            int kind = random.nextInt(10);
            if (kind == 0 && !vectors.isEmpty()) {
                vectors.add(vectors.get(random.nextInt(vectors.size())).clone()); // the same text again
            } else if (kind == 1) {
                vectors.add(new float[dimension]); // a zero vector
            } else {
                vectors.add(unit(random, dimension));
            }
            doc += 1 + (random.nextInt(5) == 0 ? 1 : 0); // documents without a vector in between
            docs[i] = doc;
            turns[i] = random.nextInt(500);
        }
        int maxDoc = doc + 1;
        FixedBitSet live = new FixedBitSet(maxDoc);
        live.set(0, maxDoc);
        for (int i = 0; i < count / 10; i++) {
            live.clear(random.nextInt(maxDoc));
        }
        float[] flat = new float[count * dimension];
        for (int i = 0; i < count; i++) {
            System.arraycopy(vectors.get(i), 0, flat, i * dimension, dimension);
        }
        Bits bits = random.nextBoolean() ? live : null;
        return new Segment(new SegmentVectors(docs, turns, dimension, flat), vectors, docs, turns, bits, maxDoc, docBase);
    }

    private static List<ScoreDoc> pruned(List<Segment> segments, float[] query, long before, int capacity) {
        PriorityQueue<ScoreDoc> best = queue();
        SegmentVectors.QueryVector prepared = new SegmentVectors.QueryVector(query);
        for (Segment segment : segments) {
            segment.built.scan(prepared, before, segment.live, segment.docBase, best, capacity,
                    new int[segment.built.size()]);
        }
        return drain(best);
    }

    /** What the index did before the first pass existed: every vector's float product, in document order. */
    private static List<ScoreDoc> exhaustive(List<Segment> segments, float[] query, long before, int capacity) {
        PriorityQueue<ScoreDoc> best = queue();
        for (Segment segment : segments) {
            for (int i = 0; i < segment.docs.length; i++) {
                int doc = segment.docs[i];
                if (segment.turns[i] >= before || (segment.live != null && !segment.live.get(doc))) {
                    continue;
                }
                float dot = SegmentVectors.dot(segment.vectors.get(i), 0, query);
                if (best.size() < capacity || dot > best.peek().score) {
                    best.add(new ScoreDoc(segment.docBase + doc, dot));
                    if (best.size() > capacity) {
                        best.poll();
                    }
                }
            }
        }
        return drain(best);
    }

    private static PriorityQueue<ScoreDoc> queue() {
        return new PriorityQueue<>(Comparator.comparingDouble(d -> d.score));
    }

    private static List<ScoreDoc> drain(PriorityQueue<ScoreDoc> best) {
        List<ScoreDoc> out = new ArrayList<>();
        while (!best.isEmpty()) {
            out.add(best.poll());
        }
        return out;
    }

    private static float[] unit(Random random, int dimension) {
        float[] vector = new float[dimension];
        for (int d = 0; d < dimension; d++) {
            vector[d] = (float) random.nextGaussian();
        }
        return SegmentVectors.unit(vector);
    }
}
