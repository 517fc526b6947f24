package io.github.memorypack.recall;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * Recall's ranking of one session index's candidates: which messages become candidates (BM25, the
 * nearest embeddings, the period a question names), how a turn is scored from its best message, and
 * which turns are relevant at all (see {@link #search}). Reads a searcher the caller holds.
 */
final class TurnRanking {

    /** BM25's IDF of a word said in one message of this index. */
    static double onceWeight(IndexSearcher searcher) throws IOException {
        CollectionStatistics stats = searcher.collectionStatistics(MessageDocuments.TEXT);
        long docs = stats == null ? 0 : stats.docCount();
        return Math.log(1 + (docs - 1 + 0.5) / 1.5);
    }

    private TurnRanking() {
    }

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
    /**
     * When a query has a word the session never said, a message is relevant only if it holds a query word
     * weighing at least this share of a word said once (BM25 IDF over the session: in a session of 600
     * messages, a word said in at most about 7 of them): "What is the name of Priya's dentist?" no longer
     * recalls "I can never remember people's names at parties", while "Which town is Ingrid based in
     * these days?" still finds the one turn that names Ingrid. On the long-memory benchmark, unanswerable
     * questions recalled 26.2% of the budget instead of 41.3% on the tuning split (24.9% instead of 46.1%
     * held out) for 2.7 points of evidence (0.5 held out); 0.5 and 0.6 recalled more, 0.7 and 0.8 lost more
     * evidence (recall/README, "Figures").
     */
    static final double RARE_SHARE = 0.65;
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
    /** Most turns returned for the parts of a question the best turns leave uncovered (see {@link #search}). */
    static final int MAX_ASPECTS = 2;
    /**
     * The least share of the question's uncovered weight that such a turn must cover: on the long-memory
     * benchmark 0.3 found 0.2 points more evidence on the tuning split and 0.6 held out (multi-hop 37.9% to
     * 41.4%) at the same tokens; 0.5 and 0.7 found nothing more, 0.2 the same as 0.3.
     */
    static final double ASPECT_SHARE = 0.3;
    /** How many messages of the view's turns the lexical search brings, for a temporal question (see {@link #search}). */
    static final int SHOWN_CANDIDATES = 50;
    /** Most turns the view shows that a temporal question gets a dated reference to. */
    static final int MAX_SHOWN = 2;

    /** One candidate turn: where it starts in the log, its user message's id, and its scores. */
    static final class Hit {
        final long turn;
        String turnId;
        /** The log indices of the turn's indexed messages, in log order. */
        final List<Long> entries = new ArrayList<>();
        /** The log indices of the turn's candidate messages that matched: a query word of weight (a rare one when the rare-word rule applies), or with a model a semantic score at the gate. */
        final Set<Long> matched = new HashSet<>();
        /** The query words its candidate messages hold. */
        final Set<String> words = new HashSet<>();
        /** Returned for the part of the question the better turns do not cover, whatever its score (see {@link #search}). */
        boolean aspect;
        /** A turn the view shows (from {@code before} on), returned for a temporal question as a dated reference only. */
        boolean shown;
        /** The log index of its message that covers most of the query (-1 if none holds a query word of weight). */
        long best = -1;
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
     * the best turns. After them come up to {@link #MAX_ASPECTS} turns for the part of the question those
     * turns leave uncovered, marked {@link Hit#aspect} and kept whatever their score (see {@link #aspects}).
     *
     * <p>With {@code shown} (a temporal question, and a view that starts at {@code before}), the turns from
     * {@code before} on (the ones the view shows) are candidates too, by their words only (the
     * {@link #SHOWN_CANDIDATES} best messages by BM25, and those of the period): scored the same way, they
     * take no part in the ranking above, and at most {@link #MAX_SHOWN} of them come last, marked
     * {@link Hit#shown}, best first: those whose coverage reaches {@code minRelevance} and whose coverage plus the
     * period's bonus is at least {@link #RELATIVE_CUTOFF} of the best such score of any candidate turn, shown or
     * not. The caller gives them a dated reference, not their text.
     *
     * @param queryVector the query's embedding, or {@code null} for lexical only
     * @param period      the time the question asks about (epoch milliseconds, inclusive), or {@code null}
     * @param shown       whether to score the view's turns too (needs a searcher that sees every document)
     */
    static List<Hit> search(IndexSearcher searcher, VectorScan vectors, Set<String> queryWords, float[] queryVector,
                            long before, long[] period, double minRelevance, int limit, double similarityFloor,
                            boolean shown)
            throws IOException {
        Query beforeFilter = LongPoint.newRangeQuery(MessageDocuments.TURN, Long.MIN_VALUE, before - 1);
        Map<Integer, Double> similarity = new HashMap<>();
        List<String> present = new ArrayList<>();
        Map<String, Double> queryTerms = idf(searcher, queryWords, present);
        Alternates alternates = Alternates.of(searcher, queryTerms, present);
        boolean unsaid = alternates.unsaid;
        List<Integer> candidates = new ArrayList<>();
        double floor = similarityFloor;
        double semanticGate = SEMANTIC_SHARE * minRelevance;
        if (!present.isEmpty() || !alternates.terms.isEmpty()) {
            // only the words the session used match anything; a long pasted text is held to the
            // rarest of them, under Lucene's clause limit
            if (present.size() > MAX_QUERY_TERMS) {
                present.sort(Comparator.comparingDouble((String term) -> -queryTerms.get(term)));
                present = present.subList(0, MAX_QUERY_TERMS);
            }
            BooleanQuery.Builder terms = new BooleanQuery.Builder();
            for (String term : present) {
                terms.add(new TermQuery(new Term(MessageDocuments.TEXT, term)), BooleanClause.Occur.SHOULD);
                terms.add(new BoostQuery(new TermQuery(new Term(MessageDocuments.CONTEXT, term)), (float) CONTEXT_WEIGHT),
                        BooleanClause.Occur.SHOULD);
            }
            // a paraphrase brings the messages that say it; the message after one is scored with it as its
            // context below but not sought by it (with a clause for each word in both fields, the search took
            // 1.3 ms on average at 10,000 turns, against 0.8 ms with the text only and 0.25 ms without paraphrases)
            for (String term : alternates.terms.subList(0, Math.min(alternates.terms.size(), MAX_QUERY_TERMS - present.size()))) {
                terms.add(new BoostQuery(new TermQuery(new Term(MessageDocuments.TEXT, term)), (float) Alternates.WEIGHT),
                        BooleanClause.Occur.SHOULD);
            }
            Query words = terms.build();
            Query lexical = new BooleanQuery.Builder().add(words, BooleanClause.Occur.MUST)
                    .add(beforeFilter, BooleanClause.Occur.FILTER).build();
            candidates.addAll(ranked(searcher.search(lexical, LEXICAL_CANDIDATES).scoreDocs));
            if (period != null) {
                Query then = new BooleanQuery.Builder().add(words, BooleanClause.Occur.MUST)
                        .add(beforeFilter, BooleanClause.Occur.FILTER)
                        .add(LongPoint.newRangeQuery(MessageDocuments.TIME, period[0], period[1]), BooleanClause.Occur.FILTER).build();
                candidates.addAll(ranked(searcher.search(then, PERIOD_CANDIDATES).scoreDocs));
            }
            if (shown && before != Long.MAX_VALUE) {
                Query inView = LongPoint.newRangeQuery(MessageDocuments.TURN, before, Long.MAX_VALUE);
                candidates.addAll(ranked(searcher.search(new BooleanQuery.Builder().add(words, BooleanClause.Occur.MUST)
                        .add(inView, BooleanClause.Occur.FILTER).build(), SHOWN_CANDIDATES).scoreDocs));
                if (period != null) {
                    candidates.addAll(ranked(searcher.search(new BooleanQuery.Builder().add(words, BooleanClause.Occur.MUST)
                            .add(inView, BooleanClause.Occur.FILTER)
                            .add(LongPoint.newRangeQuery(MessageDocuments.TIME, period[0], period[1]), BooleanClause.Occur.FILTER)
                            .build(), PERIOD_CANDIDATES).scoreDocs));
                }
            }
        }
        if (queryVector != null) {
            ScoreDoc[] near = vectors.nearest(searcher, SegmentVectors.unit(queryVector), before, similarity);
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
        Map<Integer, Double> strongest = new HashMap<>();
        Map<Integer, Set<String>> wordsOf = new HashMap<>();
        Map<Integer, Double> covered = queryWeight > 0 ? covered(searcher, MessageDocuments.TEXT, alternates, docsOfTurn, strongest, wordsOf) : Map.of();
        Map<Integer, Double> context = queryWeight > 0 ? covered(searcher, MessageDocuments.CONTEXT, alternates, docsOfTurn, new HashMap<>(), null) : Map.of();
        // a question with a word the session never said may be about something never said: a message then
        // counts only if it shares one of the question's rare words, not only common ones ("name", "called")
        double rare = unsaid ? RARE_SHARE * onceWeight(searcher) : 0;
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        List<Hit> scored = new ArrayList<>();
        List<Hit> weak = new ArrayList<>();
        List<Hit> inView = new ArrayList<>();
        for (Hit hit : hits.values()) {
            double coverage = 0;
            double cosine = 0;
            boolean inPeriod = false;
            for (int docId : docsOfTurn.get(hit.turn)) {
                LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
                NumericDocValues entryValues = DocValues.getNumeric(leaf.reader(), MessageDocuments.ENTRY);
                long entry = entryValues.advanceExact(docId - leaf.docBase) ? entryValues.longValue() : -1;
                if (hit.turnId == null) {
                    BinaryDocValues turnIds = DocValues.getBinary(leaf.reader(), MessageDocuments.TURN_ID);
                    if (turnIds.advanceExact(docId - leaf.docBase)) {
                        hit.turnId = turnIds.binaryValue().utf8ToString();
                    }
                }
                if (period != null) {
                    NumericDocValues times = DocValues.getNumeric(leaf.reader(), MessageDocuments.TIME);
                    if (times.advanceExact(docId - leaf.docBase)) {
                        long time = times.longValue();
                        inPeriod |= time >= period[0] && time <= period[1];
                    }
                }
                if (queryWeight > 0 && strongest.getOrDefault(docId, 0.0) >= rare) {
                    double own = covered.getOrDefault(docId, 0.0);
                    double around = Math.max(0, context.getOrDefault(docId, 0.0) - own);
                    double message = (own + CONTEXT_WEIGHT * around) / queryWeight;
                    if (own > 0 && (hit.best < 0 || message > coverage)) {
                        hit.best = entry;
                    }
                    coverage = Math.max(coverage, message);
                    if (own > 0 && entry >= 0) {
                        hit.matched.add(entry);
                    }
                }
                hit.words.addAll(wordsOf.getOrDefault(docId, Set.of()));
                double similar = similarity.getOrDefault(docId, 0.0);
                cosine = Math.max(cosine, similar);
                if (queryVector != null && entry >= 0 && (similar - floor) / (1 - floor) >= semanticGate) {
                    hit.matched.add(entry);
                }
            }
            // the query's background similarity counts as none: above it, rescaled to 0-1
            double semantic = queryVector == null ? 0 : Math.max(0, (cosine - floor) / (1 - floor));
            hit.coverage = coverage;
            hit.semantic = semantic;
            if (hit.turn >= before) {
                // a turn the view shows: by its words only, kept apart from the ranking of recalled turns
                if (coverage >= minRelevance && hit.best >= 0) {
                    hit.shown = true;
                    hit.fused = coverage + (inPeriod ? PERIOD_BONUS : 0);
                    inView.add(hit);
                }
                continue;
            }
            if (coverage < minRelevance && (queryVector == null || semantic < semanticGate)) {
                weak.add(hit);
                continue;
            }
            hit.fused = coverage + (inPeriod ? PERIOD_BONUS : 0);
            scored.add(hit);
        }
        List<Hit> dated = datedShown(inView, scored);
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
        result.addAll(aspects(scored, weak, alternates.credit, queryWeight, RARE_SHARE * onceWeight(searcher),
                queryVector == null ? RELATIVE_CUTOFF : HYBRID_RELATIVE_CUTOFF));
        result.addAll(dated);
        attachEntries(searcher, result);
        return result;
    }

    /**
     * Of the view's turns that match, those a temporal question gets a dated reference to: at most
     * {@link #MAX_SHOWN}, best first, each scoring (coverage plus the period's bonus) at least
     * {@link #RELATIVE_CUTOFF} of the best such score of any candidate, shown or recalled (called before
     * the recalled turns' scores are combined with a model's).
     */
    private static List<Hit> datedShown(List<Hit> inView, List<Hit> scored) {
        if (inView.isEmpty()) {
            return List.of();
        }
        double best = 0;
        for (Hit hit : inView) {
            best = Math.max(best, hit.fused);
        }
        for (Hit hit : scored) {
            best = Math.max(best, hit.fused);
        }
        List<Hit> dated = new ArrayList<>();
        for (Hit hit : inView) {
            if (hit.fused >= RELATIVE_CUTOFF * best) {
                dated.add(hit);
            }
        }
        dated.sort(Comparator.comparingDouble((Hit h) -> -h.fused).thenComparingLong(h -> -h.turn));
        return new ArrayList<>(dated.subList(0, Math.min(MAX_SHOWN, dated.size())));
    }

    /**
     * The turns that cover the part of the question the turns above the relative cut-off leave uncovered
     * ("Which came first: the half marathon or the knee injury?", whose best turn holds "half marathon"):
     * greedily, at most {@link #MAX_ASPECTS}, each the turn whose query words not yet covered weigh most,
     * if they include a rare word (at least {@link #RARE_SHARE} of a word said once) and weigh at least
     * {@link #ASPECT_SHARE} of what is left uncovered. Marked {@link Hit#aspect}: kept whatever their score
     * (even under {@code minRelevance}), which is at least their coverage.
     */
    private static List<Hit> aspects(List<Hit> scored, List<Hit> weak, Map<String, Double> queryTerms, double queryWeight,
                                     double rare, double cutoff) {
        if (scored.isEmpty() || queryWeight <= 0) {
            return List.of();
        }
        Set<String> held = new HashSet<>();
        List<Hit> pool = new ArrayList<>(weak);
        for (Hit hit : scored) {
            if (hit.fused >= cutoff * scored.get(0).fused) {
                held.addAll(hit.words);
            } else {
                pool.add(hit);
            }
        }
        // of two turns that cover as much of the rest, the one that covers more of the question, then the newer
        pool.sort(Comparator.comparingDouble((Hit h) -> -h.coverage).thenComparingLong(h -> -h.turn));
        List<Hit> aspects = new ArrayList<>();
        while (aspects.size() < MAX_ASPECTS) {
            double left = queryWeight;
            for (String word : held) {
                left -= queryTerms.getOrDefault(word, 0.0);
            }
            Hit best = null;
            double bestNovel = 0;
            for (Hit hit : pool) {
                double novel = 0;
                double rarest = 0;
                for (String word : hit.words) {
                    if (!held.contains(word)) {
                        novel += queryTerms.get(word);
                        rarest = Math.max(rarest, queryTerms.get(word));
                    }
                }
                if (rarest >= rare && novel >= ASPECT_SHARE * left && novel > bestNovel) {
                    best = hit;
                    bestNovel = novel;
                }
            }
            if (best == null) {
                break;
            }
            best.aspect = true;
            best.fused = Math.max(best.fused, best.coverage); // its score: a turn under minScore has no fused one yet
            held.addAll(best.words);
            pool.remove(best);
            aspects.add(best);
        }
        return aspects;
    }

    /**
     * For each candidate message, the summed weight of the query terms it contains: read from each
     * term's postings (the text was indexed by the same analyzer), not from stored text.
     */
    private static Map<Integer, Double> covered(IndexSearcher searcher, String field, Alternates query,
                                                Map<Long, List<Integer>> docsOfTurn, Map<Integer, Double> strongest,
                                                Map<Integer, Set<String>> wordsOf) throws IOException {
        List<Integer> candidates = new ArrayList<>();
        for (List<Integer> docs : docsOfTurn.values()) {
            candidates.addAll(docs);
        }
        candidates.sort(null);
        // per message, the credit of each query word: its own weight, or a word it may stand for's
        Map<Integer, Map<String, Double>> credits = new HashMap<>();
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
            for (Map.Entry<String, Double> term : query.credit.entrySet()) {
                if (!termsEnum.seekExact(new BytesRef(term.getKey()))) {
                    continue;
                }
                String word = query.wordOf.get(term.getKey());
                PostingsEnum postings = termsEnum.postings(null, PostingsEnum.NONE);
                for (int c = from; c < i; c++) {
                    int doc = candidates.get(c) - leaf.docBase;
                    int at = postings.docID() < doc ? postings.advance(doc) : postings.docID();
                    if (at == doc) {
                        credits.computeIfAbsent(candidates.get(c), d -> new HashMap<>()).merge(word, term.getValue(), Math::max);
                        if (wordsOf != null && term.getValue() > 0) {
                            wordsOf.computeIfAbsent(candidates.get(c), d -> new HashSet<>()).add(term.getKey());
                        }
                    }
                }
            }
        }
        Map<Integer, Double> covered = new HashMap<>();
        for (Map.Entry<Integer, Map<String, Double>> doc : credits.entrySet()) {
            for (double credit : doc.getValue().values()) {
                covered.merge(doc.getKey(), credit, Double::sum);
                strongest.merge(doc.getKey(), credit, Math::max);
            }
        }
        return covered;
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
        Weight weight = searcher.createWeight(searcher.rewrite(MessageDocuments.textDocuments(LongPoint.newSetQuery(MessageDocuments.TURN, turns))),
                ScoreMode.COMPLETE_NO_SCORES, 1);
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            Scorer scorer = weight.scorer(leaf);
            if (scorer == null) {
                continue;
            }
            Bits live = leaf.reader().getLiveDocs();
            NumericDocValues entries = DocValues.getNumeric(leaf.reader(), MessageDocuments.ENTRY);
            NumericDocValues turnValues = DocValues.getNumeric(leaf.reader(), MessageDocuments.TURN);
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
            NumericDocValues values = DocValues.getNumeric(leaf.reader(), MessageDocuments.ENTRY);
            if (values.advanceExact(doc.doc - leaf.docBase)) {
                entries[count++] = values.longValue();
            }
        }
        return ranked(searcher.search(MessageDocuments.textDocuments(LongPoint.newSetQuery(MessageDocuments.ENTRY, Arrays.copyOf(entries, count))),
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
     * The candidate turns (from doc values: no stored field is read), and which candidate messages
     * belong to which turn.
     */
    private static Map<Long, Hit> group(List<Integer> docs, IndexSearcher searcher, Map<Long, List<Integer>> docsOfTurn)
            throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        Map<Long, Hit> hits = new HashMap<>();
        for (int docId : docs) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
            NumericDocValues turns = DocValues.getNumeric(leaf.reader(), MessageDocuments.TURN);
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
        CollectionStatistics stats = searcher.collectionStatistics(MessageDocuments.TEXT);
        long docs = stats == null ? 0 : stats.docCount();
        // a word the session never used weighs half of what a word used once would: reworded questions
        // bring new words, which should not bury the one they share, nor be ignored
        double unknown = Math.log(1 + (docs - 1 + 0.5) / 1.5) / 2;
        for (String term : terms) {
            long df = searcher.getIndexReader().docFreq(new Term(MessageDocuments.TEXT, term));
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
}
