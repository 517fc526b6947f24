package io.github.memorypack.recall;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;

/**
 * A query's words with the words each may stand for in the session ({@link Paraphrases}): what a
 * message holding each term is credited with, and for each term the query word it counts for.
 * {@link TurnRanking} seeks the alternatives with the query's words and credits a message per query word
 * with the most of its own word or an alternative's credit.
 */
final class Alternates {

    /**
     * What a message holding a word the query's word may stand for is credited with, as a share of the
     * query word's weight. On the sittings benchmark (summary-buffer(2,000) + recall, all 13
     * conversations) 0.5 brought 4.0 points more evidence turns (34.8% against 30.8% without paraphrases; 3.3
     * points on the held-out conversations) for 1.2 points more of the buffer's tokens; 0.4 and 0.6 measured
     * within 0.3 points of it; 0.7 let matches through a paraphrase alone pass {@link TurnRanking#RARE_SHARE}'s
     * gate, and unanswerable questions recalled 53% of the budget instead of 30% (recall/README, "Figures").
     */
    static final double WEIGHT = 0.5;
    /**
     * Most words of the session one query word may stand for, the rarest in the session first: a broad
     * word ("person", "food") has hundreds in a long session, each a clause of the query and a look-up per
     * candidate.
     */
    static final int MAX_PER_WORD = 50;

    /** Each query word's weight, and each alternative's credit. */
    final Map<String, Double> credit = new LinkedHashMap<>();
    /** The query word each term counts for (a query word counts for itself). */
    final Map<String, String> wordOf = new HashMap<>();
    /** The alternatives the session has, in the query's order. */
    final List<String> terms = new ArrayList<>();
    /** True if a query word is neither said in the session nor stands for a word it said rarely. */
    boolean unsaid;

    private Alternates() {
    }

    /**
     * The words the session said that the query's words may stand for: a word's synonyms and narrower
     * words ({@link Paraphrases}) that the session has and that are not common in it. A message holding
     * one is credited with {@link #WEIGHT} of the query word's weight (at most the alternative's
     * own IDF); a query word the session never said, but one it may stand for, weighs
     * {@link #WEIGHT} of a word said once (instead of half), and a message holding that word is
     * credited with all of it (at most the alternative's own IDF). {@code queryTerms} is updated;
     * {@code present} are the query words the session said.
     */
    static Alternates of(IndexSearcher searcher, Map<String, Double> queryTerms, List<String> present)
            throws IOException {
        Alternates alternates = new Alternates();
        CollectionStatistics stats = searcher.collectionStatistics(MessageDocuments.TEXT);
        long docs = stats == null ? 0 : stats.docCount();
        double once = TurnRanking.onceWeight(searcher);
        for (Map.Entry<String, Double> word : queryTerms.entrySet()) {
            alternates.wordOf.put(word.getKey(), word.getKey());
        }
        for (Map.Entry<String, Double> word : queryTerms.entrySet()) {
            boolean said = present.contains(word.getKey());
            boolean stands = false;
            if (word.getValue() > 0 && docs > 0) {
                double weight = said ? word.getValue() : WEIGHT * once;
                Map<String, Integer> found = new LinkedHashMap<>();
                for (String term : Paraphrases.of(word.getKey())) {
                    if (alternates.wordOf.containsKey(term)) {
                        continue;
                    }
                    int df = SegmentTerms.docFreq(searcher.getIndexReader(), term);
                    if (df > 0 && (docs < TurnRanking.COMMON_MIN_MESSAGES || df <= TurnRanking.COMMON_SHARE * docs)) {
                        found.put(term, df);
                    }
                }
                // the rarest, which say most about which turn the question is after
                List<Map.Entry<String, Integer>> rarest = new ArrayList<>(found.entrySet());
                rarest.sort(Map.Entry.comparingByValue());
                for (Map.Entry<String, Integer> alternative : rarest.subList(0, Math.min(MAX_PER_WORD, rarest.size()))) {
                    int df = alternative.getValue();
                    double idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
                    alternates.wordOf.put(alternative.getKey(), word.getKey());
                    alternates.credit.put(alternative.getKey(), Math.min(said ? WEIGHT * weight : weight, idf));
                    alternates.terms.add(alternative.getKey());
                    // a never-said word that stands only for words said often may still be about
                    // something never said: the rare-word rule stays (unanswerable 29.6% -> 28.8% of the
                    // budget on the sittings benchmark, the same evidence)
                    stands |= idf >= TurnRanking.RARE_SHARE * once;
                }
                if (stands && !said) {
                    word.setValue(weight);
                }
            }
            alternates.unsaid |= !said && !stands;
        }
        Map<String, Double> credit = new LinkedHashMap<>(queryTerms);
        credit.putAll(alternates.credit);
        alternates.credit.clear();
        alternates.credit.putAll(credit);
        return alternates;
    }
}
