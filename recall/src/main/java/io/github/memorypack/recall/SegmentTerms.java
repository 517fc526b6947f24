package io.github.memorypack.recall;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.BytesRef;

/**
 * Each index segment's words ({@link MessageDocuments#TEXT} terms) with their document frequency, read once
 * per segment and kept until the segment closes. A query word's {@link Paraphrases} are hundreds to
 * thousands of words, of which a session said a few: looked up here they cost a hash look-up each, where
 * seeking each in the terms dictionary of every segment cost about 3 µs a word and segment (18 ms for the
 * 5,597 of "person" over 9 segments; {@link IndexReader#docFreq} 155 ms). Segments never change once
 * written, and document frequencies count deleted messages as Lucene's do.
 */
final class SegmentTerms {

    private static final Map<IndexReader.CacheKey, Map<String, Integer>> TERMS = new ConcurrentHashMap<>();

    private SegmentTerms() {
    }

    /** In how many of {@code reader}'s messages {@code term} occurs, as {@link IndexReader#docFreq}. */
    static int docFreq(IndexReader reader, String term) throws IOException {
        int total = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            total += of(leaf).getOrDefault(term, 0);
        }
        return total;
    }

    /** How many segments' words are kept. */
    static int cached() {
        return TERMS.size();
    }

    private static Map<String, Integer> of(LeafReaderContext leaf) throws IOException {
        IndexReader.CacheHelper helper = leaf.reader().getCoreCacheHelper();
        Map<String, Integer> cached = helper == null ? null : TERMS.get(helper.getKey());
        if (cached != null) {
            return cached;
        }
        Map<String, Integer> terms = new HashMap<>();
        Terms text = leaf.reader().terms(MessageDocuments.TEXT);
        if (text != null) {
            TermsEnum each = text.iterator();
            for (BytesRef term = each.next(); term != null; term = each.next()) {
                terms.put(term.utf8ToString(), each.docFreq());
            }
        }
        if (helper != null && TERMS.putIfAbsent(helper.getKey(), terms) == null) {
            helper.addClosedListener(TERMS::remove);
        }
        return terms;
    }
}
