package io.github.memorypack.recall;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a query's ranked turns become: each read back from the store (and checked against the index by
 * entry id), rendered with its date label, kept while the token budget lasts and the relative cut-off
 * allows, and returned oldest first as LangChain4j {@link Content} with its score.
 */
final class RecalledTurns {

    private final SessionStore store;
    private final TokenCountEstimator tokenizer;
    private final int maxTokens;
    /** A turn scoring under this share of the best turn kept is not returned. */
    private final double cutoff;
    /** Finds the sentence of a shown turn's message that holds the question's words. */
    private final RecallAnalyzer analyzer = new RecallAnalyzer();

    RecalledTurns(SessionStore store, TokenCountEstimator tokenizer, int maxTokens, double cutoff) {
        this.store = store;
        this.tokenizer = tokenizer;
        this.maxTokens = maxTokens;
        this.cutoff = cutoff;
    }

    /**
     * Reads the best turns from the store, within the budget, oldest first: a turn that only asked this
     * same question before is left out (it holds no answer), and so is every turn scoring under
     * {@code cutoff} ({@link TurnRanking#RELATIVE_CUTOFF}, or {@link TurnRanking#HYBRID_RELATIVE_CUTOFF} with a model) of the best
     * one kept. After them, within what is left of the budget, a dated reference to each of the view's turns
     * a temporal question is about ({@link TurnRanking.Hit#shown}: see {@link Turns#reference}).
     */
    List<Content> assemble(String sessionId, String question, List<TurnRanking.Hit> hits) {
        List<Recalled> chosen = new ArrayList<>();
        Set<String> shown = new HashSet<>();
        shown.add(question.strip().toLowerCase(Locale.ROOT));
        int budget = maxTokens;
        double best = Double.NaN;
        List<TurnRanking.Hit> inView = new ArrayList<>();
        for (TurnRanking.Hit hit : hits) {
            if (hit.shown) {
                inView.add(hit);
                continue;
            }
            if (budget <= 0) {
                break;
            }
            if (hit.fused < cutoff * best && !hit.aspect) {
                continue;
            }
            List<Entry> turn = read(sessionId, hit);
            if (turn.isEmpty() || turn.get(0).index() != hit.turn) {
                continue; // trimmed after the index caught up, or its question was replaced
            }
            if (!turn.get(0).id().equals(hit.turnId)) {
                throw new RecallContentRetriever.StaleIndexException("turn at log index " + hit.turn + " is not the one indexed");
            }
            String said = Turns.said((UserMessage) turn.get(0).message());
            if (!said.isEmpty() && !shown.add(said.toLowerCase(Locale.ROOT))) {
                continue; // the same words said again (or the question asked again): one copy, or none
            }
            if (Double.isNaN(best)) {
                best = hit.fused;
            }
            String text = Turns.render(turn, hit.matched);
            int tokens = tokenizer.estimateTokenCountInText(text);
            if (tokens > budget && chosen.isEmpty()) {
                text = cut(text, budget);
                tokens = text == null ? Integer.MAX_VALUE : tokenizer.estimateTokenCountInText(text);
            }
            if (tokens <= budget) {
                chosen.add(new Recalled(turn.get(0), text, hit.fused));
                budget -= tokens;
            }
        }
        // a temporal question about turns the view shows: a dated reference to each, within what is left of the budget
        for (TurnRanking.Hit hit : inView) {
            List<Entry> turn = read(sessionId, hit);
            if (turn.isEmpty() || turn.get(0).index() != hit.turn || !turn.get(0).id().equals(hit.turnId)) {
                continue; // changed since the search: the view is the memory's, not to be second-guessed here
            }
            String said = Turns.said((UserMessage) turn.get(0).message());
            if (shown.contains(said.toLowerCase(Locale.ROOT))) {
                continue; // the question itself, or asked before
            }
            String text = Turns.reference(turn, hit.best, hit.words, analyzer);
            int tokens = text == null ? Integer.MAX_VALUE : tokenizer.estimateTokenCountInText(text);
            if (tokens <= budget) {
                chosen.add(new Recalled(turn.get(0), text, hit.fused));
                budget -= tokens;
            }
        }
        chosen.sort(Comparator.comparingLong(r -> r.first.index()));
        List<Content> contents = new ArrayList<>(chosen.size());
        for (Recalled r : chosen) {
            Map<String, Object> metadata = new HashMap<>();
            metadata.put("session_id", sessionId);
            metadata.put("log_index", r.first.index());
            metadata.put("timestamp", r.first.timestamp().toString());
            contents.add(Content.from(TextSegment.from(r.text, dev.langchain4j.data.document.Metadata.from(metadata)),
                    Map.of(ContentMetadata.SCORE, r.relevance)));
        }
        return contents;
    }

    /**
     * The entries of a hit's turn, read from the store: its indexed messages and, when its user message was
     * not indexed for having no words (a photo sent alone), that message first, so the answer is shown with
     * the turn it belongs to. A user message with words that is not indexed was deleted from the index
     * (replaced, retried, cleared): it is not read, and the turn does not start at {@code hit.turn}.
     */
    private List<Entry> read(String sessionId, TurnRanking.Hit hit) {
        if (hit.entries.isEmpty() || hit.entries.get(0) == hit.turn) {
            return Turns.read(store, sessionId, hit.entries);
        }
        List<Long> indices = new ArrayList<>(hit.entries.size() + 1);
        indices.add(hit.turn);
        indices.addAll(hit.entries);
        List<Entry> turn = Turns.read(store, sessionId, indices);
        if (!turn.isEmpty() && turn.get(0).index() == hit.turn && (!(turn.get(0).message() instanceof UserMessage)
                || Turns.searchableText(turn.get(0).message()) != null)) {
            return turn.subList(1, turn.size()); // not a question without words: as before, the turn is left out
        }
        return turn;
    }

    private static final class Recalled {
        final Entry first;
        final String text;
        final double relevance;

        Recalled(Entry first, String text, double relevance) {
            this.first = first;
            this.text = text;
            this.relevance = relevance;
        }
    }

    /**
     * {@code text} cut to at most {@code budget} tokens and marked as cut, never inside a surrogate pair;
     * {@code null} when not even its first character and the mark fit.
     */
    private String cut(String text, int budget) {
        String cut = text;
        int keep = text.length();
        int tokens = tokenizer.estimateTokenCountInText(cut);
        while (tokens > budget) {
            // shorter by the share of tokens over budget, and by at least one character
            keep = (int) Math.min(keep - 1L, (long) keep * Math.max(0, budget - 4) / tokens);
            if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
                keep--;
            }
            if (keep < 1) {
                return null;
            }
            cut = text.substring(0, keep) + " […]";
            tokens = tokenizer.estimateTokenCountInText(cut);
        }
        return cut;
    }
}
