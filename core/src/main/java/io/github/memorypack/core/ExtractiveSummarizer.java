package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.SummarizationException.Reason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The offline {@link Summarizer} ({@link Summarizer#extractive()},
 * {@link Summarizer#extractiveBuilder()}): its behaviour is documented on
 * {@link Summarizer.ExtractiveBuilder}. Thread-safe.
 */
final class ExtractiveSummarizer implements Summarizer {

    private static final int MAX_SENTENCE_WORDS = Summarizer.ExtractiveBuilder.MAX_SENTENCE_WORDS;
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+");
    private static final Pattern CUE = Pattern.compile(
            "\\b(my name|call me|i am|i'm|i live|i work|i was born|my (?:wife|husband|partner|son|daughter|"
                    + "dog|cat|budget|favou?rite|birthday|address|email|phone|team|boss|company)|"
                    + "prefer|favou?rite|allergic|vegetarian|vegan|hate|love|decided|decision|agreed|"
                    + "deadline|budget|remember|always|never|must|need to|plan to|booked|ordered|chose)\\b");
    private static final Set<String> FILLER = Set.of("ok", "okay", "thanks", "thank you", "great", "sure", "cool",
            "nice", "hi", "hello", "yes", "no", "got it", "sounds good", "perfect");

    /** Most lines whose score and token cost are remembered (a summary's lines come back every fold). */
    private static final int SCORED_LINES = 4_096;

    private final int maxSummaryTokens;
    private final TokenCountEstimator tokenizer;
    // each sentence is scored once and each rendered line counted once (a summary's lines come back every fold)
    private final Map<String, Double> scores = new ConcurrentHashMap<>();
    private final Map<String, Integer> costs = new ConcurrentHashMap<>();

    ExtractiveSummarizer(Summarizer.ExtractiveBuilder builder) {
        this.maxSummaryTokens = builder.maxSummaryTokens;
        this.tokenizer = builder.tokenizer;
    }

    /** The cap on summary tokens this summarizer keeps to. */
    int maxSummaryTokens() {
        return maxSummaryTokens;
    }

    @Override
    public String summarize(String previousSummary, List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        List<Candidate> candidates = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        if (previousSummary != null) {
            for (String line : previousSummary.split("\n")) {
                String text = line.strip();
                if (!text.isEmpty()) {
                    String rendered = text.startsWith("- ") ? text : "- " + text;
                    add(candidates, seen, rendered, rendered.substring(2), 1.0);
                }
            }
        }
        for (Transcript.Line line : Transcript.lines(messages)) {
            for (String sentence : SENTENCE_END.split(line.text())) {
                String text = cut(sentence.strip());
                if (!text.isEmpty()) {
                    double speakerBonus = line.speaker().startsWith("User") ? 1.0 : 0.0;
                    add(candidates, seen, "- " + line.speaker() + ": " + text, text, speakerBonus);
                }
            }
        }
        List<Candidate> byScore = new ArrayList<>(candidates);
        byScore.sort(Comparator.comparingDouble((Candidate c) -> -c.score).thenComparingInt(c -> c.position));
        int budget = maxSummaryTokens;
        List<Candidate> kept = new ArrayList<>();
        for (Candidate candidate : byScore) {
            int cost = candidate.cost;
            // sentences with no informative feature are kept only when nothing better fits
            boolean informative = candidate.score > 0 || kept.isEmpty();
            if (informative && cost <= budget) {
                kept.add(candidate);
                budget -= cost;
            }
        }
        if (kept.isEmpty()) {
            throw new SummarizationException(Reason.EMPTY, 1, "no sentence fits in " + maxSummaryTokens + " tokens");
        }
        // each line was counted with its line break, and o200k and cl100k never merge tokens across a
        // line break, so the joined text is within the cap (the memory checks the count it stores anyway)
        String summary = join(kept);
        return summary;
    }

    private static String join(List<Candidate> kept) {
        List<Candidate> inOrder = new ArrayList<>(kept);
        inOrder.sort(Comparator.comparingInt(Candidate::position));
        StringBuilder summary = new StringBuilder();
        for (Candidate candidate : inOrder) {
            summary.append(candidate.rendered).append('\n');
        }
        return summary.toString().stripTrailing();
    }

    private void add(List<Candidate> candidates, Set<String> seen, String rendered, String text, double bonus) {
        if (seen.add(rendered.toLowerCase(Locale.ROOT))) {
            if (scores.size() >= SCORED_LINES || costs.size() >= SCORED_LINES) {
                scores.clear();
                costs.clear();
            }
            double score = scores.computeIfAbsent(text, ExtractiveSummarizer::score);
            int cost = costs.computeIfAbsent(rendered, line -> tokenizer.estimateTokenCountInText(line + "\n"));
            candidates.add(new Candidate(rendered, score + bonus, candidates.size(), cost));
        }
    }

    static double score(String sentence) {
        String lower = sentence.toLowerCase(Locale.ROOT);
        String bare = bare(lower);
        if (FILLER.contains(bare)) {
            return -3;
        }
        double score = 0;
        score += 2.0 * Math.min(3, numbers(sentence));
        score += 1.5 * Math.min(3, names(sentence));
        score += 3.0 * Math.min(2, count(CUE.matcher(lower)));
        if (sentence.endsWith("?")) {
            score += 1.0;
        }
        if (words(bare) < 4) {
            score -= 2.0;
        }
        return score;
    }

    /** Letters, digits and spaces only, trimmed (what {@code [^\p{L}\p{N} ]} removal leaves). */
    private static String bare(String lower) {
        StringBuilder out = new StringBuilder(lower.length());
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            if (c == ' ' || Character.isLetterOrDigit(c)) {
                out.append(c);
            }
        }
        return out.toString().strip();
    }

    private static int words(String bare) {
        int words = 0;
        boolean inWord = false;
        for (int i = 0; i < bare.length(); i++) {
            boolean space = Character.isWhitespace(bare.charAt(i));
            if (!space && !inWord) {
                words++;
            }
            inWord = !space;
        }
        return words;
    }

    /** Runs of digits, with {@code . , :} between digits (the numbers that score). */
    private static int numbers(String sentence) {
        int count = 0;
        int i = 0;
        int n = sentence.length();
        while (i < n) {
            if (Character.isDigit(sentence.charAt(i))) {
                count++;
                while (i < n && (Character.isDigit(sentence.charAt(i)) || ((sentence.charAt(i) == '.'
                        || sentence.charAt(i) == ',' || sentence.charAt(i) == ':') && i + 1 < n
                        && Character.isDigit(sentence.charAt(i + 1))))) {
                    i++;
                }
            } else {
                i++;
            }
        }
        return count;
    }

    /** Capitalised words after the first one (names, roughly). */
    private static int names(String sentence) {
        int count = 0;
        for (int i = 1; i + 1 < sentence.length(); i++) {
            if (Character.isWhitespace(sentence.charAt(i - 1)) && Character.isUpperCase(sentence.charAt(i))
                    && isNameChar(sentence.charAt(i + 1))) {
                count++;
            }
        }
        return count;
    }

    private static boolean isNameChar(char c) {
        return Character.isLetter(c) || c == '\'' || c == '-';
    }

    private static int count(Matcher matcher) {
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }

    private static String cut(String sentence) {
        String[] words = sentence.split("\\s+");
        if (words.length <= MAX_SENTENCE_WORDS) {
            return sentence;
        }
        return String.join(" ", java.util.Arrays.copyOf(words, MAX_SENTENCE_WORDS)) + " …";
    }

    @Override
    public String toString() {
        return "ExtractiveSummarizer{maxSummaryTokens=" + maxSummaryTokens + '}';
    }

    private record Candidate(String rendered, double score, int position, int cost) {
    }
}
