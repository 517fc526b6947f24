package io.github.memorypack.benchmarks.longmemory;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.query.Metadata;
import io.github.memorypack.benchmarks.longmemory.SittingsConversation.Question;
import io.github.memorypack.benchmarks.longmemory.SittingsConversation.QuestionKind;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.recall.RecallContentRetriever;
import io.github.memorypack.testkit.MutableClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The headline long-memory benchmark: {@value #CONVERSATIONS} generated {@link SittingsConversation}s
 * (two named speakers, 20–32 sittings, 500–800 lines each, about 1,000 questions of five kinds asked
 * after the last sitting) imported line by line through each memory, the store's clock set to each
 * line's time; then every question is put to the memory the way {@code AiServices} does it: the
 * memory's final view, plus, with recall, what recall's {@code augmentor()} appends to the question
 * for that view ({@code storeRetrievedContentInChatMemory(false)}: questions are not added to the
 * memory, each is asked of the same final state, as in LoCoMo's evaluation).
 *
 * <p>Per memory and recall set-up, per question kind and per distance of the oldest evidence line
 * (same sitting, 1–5 sittings back, 6+ back): the share of evidence lines in the request, the share of
 * questions whose answer text is in it (outside the question itself), the request's tokens, each also
 * as a ratio to the buffer's in the same run; for unanswerable questions, the recalled tokens as a
 * share of recall's budget.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests -Plongmemory package
 * </pre>
 *
 * {@code -Dlongmemory.setups=lexical,minilm,e5} chooses the recall set-ups (default: {@value #DEFAULT_SETUPS}; {@code
 * default@1500}: a set-up with another budget); {@code -Dlongmemory.summaryBuffers=1000,1200} adds summary-buffers of
 * those sizes;
 * {@code -Dlongmemory.conversations=N} runs the first N conversations; {@code -Dlongmemory.debug=KIND}
 * prints summary-buffer + recall's misses of that kind.
 */
public final class SittingsBenchmark {

    /** Conversations generated (seeds 1…N). */
    static final int CONVERSATIONS = 13;
    static final int RECALL_TOKENS = RecallContentRetriever.DEFAULT_MAX_TOKENS;
    static final int SUMMARY_BUFFER_TOKENS = 2_000;
    static final int SUMMARY_CAP = 500;
    static final int WINDOW_MESSAGES = 20;
    static final String DEFAULT_SETUPS = "default,minilm";
    static final String BUFFER = "buffer";
    static final String SUMMARY_BUFFER = "summary-buffer (" + SUMMARY_BUFFER_TOKENS + ")";
    private static final String SESSION = "chat";
    private static final TokenCountEstimator TOKENIZER = Tokenizers.o200k();

    private SittingsBenchmark() {
    }

    /** A memory under test. */
    record Strategy(String name, BiFunction<SessionStore, String, ChatMemory> memory) {
    }

    static List<Strategy> strategies() {
        List<Strategy> strategies = new ArrayList<>(List.of(
                new Strategy(BUFFER, (store, id) -> BufferChatMemory.builder().id(id).chatMemoryStore(store).build()),
                new Strategy("window (" + WINDOW_MESSAGES + " messages)", (store, id) -> WindowChatMemory.builder().id(id)
                        .chatMemoryStore(store).maxMessages(WINDOW_MESSAGES).build()),
                new Strategy("window (2000 tokens, chunked)", (store, id) -> WindowChatMemory.builder().id(id)
                        .chatMemoryStore(store).maxTokens(2_000, TOKENIZER).chunkedEviction().build()),
                new Strategy("summary (cap " + SUMMARY_CAP + ")", (store, id) -> SummaryChatMemory.builder().id(id)
                        .chatMemoryStore(store).tokenizer(TOKENIZER).summarizer(Summarizer.extractive(SUMMARY_CAP)).build()),
                new Strategy(SUMMARY_BUFFER, (store, id) -> SummaryBufferChatMemory.builder().id(id)
                        .chatMemoryStore(store).tokenizer(TOKENIZER).summarizer(Summarizer.extractive(SUMMARY_CAP))
                        .maxBufferTokens(SUMMARY_BUFFER_TOKENS).build())));
        // -Dlongmemory.summaryBuffers=1000,1200: summary-buffers of other sizes too (with setups such as default@1500,
        // to see which split of the same tokens between the buffer and recall pays)
        for (String size : System.getProperty("longmemory.summaryBuffers", "").split(",")) {
            if (!size.isBlank()) {
                int tokens = Integer.parseInt(size.strip());
                strategies.add(new Strategy("summary-buffer (" + tokens + ")", (store, id) -> SummaryBufferChatMemory.builder()
                        .id(id).chatMemoryStore(store).tokenizer(TOKENIZER).summarizer(Summarizer.extractive(SUMMARY_CAP))
                        .maxBufferTokens(tokens).build()));
            }
        }
        return strategies;
    }

    /** A recall set-up: its label, how to build it on a store, and its token budget. */
    record Setup(String label, Function<SessionStore, RecallContentRetriever> retriever, int budget) {

        Setup(String label, Function<SessionStore, RecallContentRetriever> retriever) {
            this(label, retriever, RECALL_TOKENS);
        }
    }

    /** A set-up by name; {@code name@tokens} (e.g. {@code default@1500}) is the same set-up with another budget. */
    static Setup setup(String name) {
        if (name.contains("@")) {
            int budget = Integer.parseInt(name.substring(name.indexOf('@') + 1));
            Setup setup = setup(name.substring(0, name.indexOf('@')), budget);
            return new Setup(setup.label().replaceFirst("^recall", "recall(" + budget + ")"), setup.retriever(), budget);
        }
        return setup(name, RECALL_TOKENS);
    }

    private static Setup setup(String name, int budget) {
        return switch (name) {
            case "default" -> new Setup("recall (default)", store -> RecallContentRetriever.builder().store(store)
                    .maxTokens(budget).build(), budget);
            case "lexical" -> new Setup("recall lexicalOnly()", store -> RecallContentRetriever.builder().store(store)
                    .lexicalOnly().maxTokens(budget).build(), budget);
            case "minilm" -> new Setup("recall hybrid()", store -> RecallContentRetriever.builder()
                    .store(store).hybrid().maxTokens(budget).build(), budget);
            case "minilm-floor", "e5", "bge" -> {
                // -Dlongmemory.floor=x: the model's similarity floor (e5 0.8, bge 0.6, minilm-floor 0.55 by default:
                // the floors at which each recalls as many tokens as lexical on the tuning split)
                String model = name.equals("minilm-floor") ? "minilm" : name;
                double floor = Double.parseDouble(System.getProperty("longmemory.floor",
                        name.equals("e5") ? "0.8" : name.equals("bge") ? "0.6" : "0.55"));
                yield new Setup("recall hybrid " + model + " (floor " + floor + ")", store -> RecallContentRetriever
                        .builder().store(store).embeddingModel(quiet(model, floor)).maxTokens(budget).build(), budget);
            }
            default -> throw new IllegalArgumentException("unknown recall set-up " + name);
        };
    }

    /** One of recall's in-process models with a similarity floor (its package-private loader), loaded once. */
    static synchronized dev.langchain4j.model.embedding.EmbeddingModel quiet(String which, double floor) {
        return MODELS.computeIfAbsent(which + "/" + floor, key -> {
            try {
                java.lang.reflect.Method quiet = Class.forName(RecallContentRetriever.class.getPackageName() + ".DefaultModel")
                        .getDeclaredMethod("quiet", String.class, double.class);
                quiet.setAccessible(true);
                return (dev.langchain4j.model.embedding.EmbeddingModel) quiet.invoke(null, which, floor);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static final Map<String, dev.langchain4j.model.embedding.EmbeddingModel> MODELS = new java.util.HashMap<>();

    /** Distance of a question's oldest evidence from the last sitting. */
    enum Distance {
        SAME("same sitting"), NEAR("1-5 back"), FAR("6+ back"), NONE("no evidence");

        final String label;

        Distance(String label) {
            this.label = label;
        }

        static Distance of(SittingsConversation conversation, Question question) {
            if (question.evidenceSitting() < 0) {
                return NONE;
            }
            int back = conversation.sittings() - 1 - question.evidenceSitting();
            return back == 0 ? SAME : back <= 5 ? NEAR : FAR;
        }
    }

    /** Sums over a set of questions. */
    static final class Tally {
        int questions;
        double evidence;
        int answered;
        long tokens;
        long recalledTokens;

        void add(double evidenceShare, boolean answer, long requestTokens, long recalled) {
            questions++;
            evidence += evidenceShare;
            answered += answer ? 1 : 0;
            tokens += requestTokens;
            recalledTokens += recalled;
        }

        double evidenceShare() {
            return questions == 0 ? Double.NaN : evidence / questions;
        }

        double answerShare() {
            return questions == 0 ? Double.NaN : (double) answered / questions;
        }

        double meanTokens() {
            return questions == 0 ? Double.NaN : (double) tokens / questions;
        }

        double meanRecalled() {
            return questions == 0 ? Double.NaN : (double) recalledTokens / questions;
        }
    }

    /** The tallies of one row (memory + recall set-up): overall, per kind, per distance (answerable only). */
    static final class Row {
        /** The recall set-up's token budget (0 without recall). */
        final int budget;
        final Tally all = new Tally();
        final Tally answerable = new Tally();
        final Map<QuestionKind, Tally> kinds = new LinkedHashMap<>();
        final Map<Distance, Tally> distances = new LinkedHashMap<>();

        Row(int budget) {
            this.budget = budget;
            for (QuestionKind kind : QuestionKind.values()) {
                kinds.put(kind, new Tally());
            }
            for (Distance distance : Distance.values()) {
                distances.put(distance, new Tally());
            }
        }
    }

    /** Conversations 1 to this (seeds) are the tuning split; the others are held out. */
    static final int TUNING = 5;

    public static void main(String[] args) {
        // -Dlongmemory.conversations=N (seeds 1-N) or A-B (seeds A to B)
        String range = System.getProperty("longmemory.conversations", Integer.toString(CONVERSATIONS));
        int from = range.contains("-") ? Integer.parseInt(range.substring(0, range.indexOf('-'))) : 1;
        int count = range.contains("-") ? Integer.parseInt(range.substring(range.indexOf('-') + 1)) : Integer.parseInt(range);
        List<String> setupNames = List.of(System.getProperty("longmemory.setups", DEFAULT_SETUPS).split(","));
        List<Setup> setups = new ArrayList<>();
        for (String name : setupNames) {
            setups.add(setup(name.strip()));
        }
        List<SittingsConversation> conversations = new ArrayList<>();
        for (long seed = from; seed <= count; seed++) {
            conversations.add(SittingsConversation.generate(seed));
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        Map<String, Row> tuning = new LinkedHashMap<>();
        Map<String, Row> heldOut = new LinkedHashMap<>();
        long started = System.nanoTime();
        for (int c = 0; c < conversations.size(); c++) {
            SittingsConversation conversation = conversations.get(c);
            run(conversation, setups, List.of(rows, from + c <= TUNING ? tuning : heldOut));
            System.err.printf(Locale.ROOT, "done: %s (%.0f s)%n", conversation, (System.nanoTime() - started) / 1e9);
        }
        StringBuilder out = new StringBuilder();
        int lines = 0;
        int questions = 0;
        for (SittingsConversation conversation : conversations) {
            out.append("  ").append(conversation).append('\n');
            lines += conversation.lines().size();
            questions += conversation.questions().size();
        }
        out.insert(0, String.format(Locale.ROOT, "Long-memory benchmark (sittings): %d conversations, %,d lines, %,d "
                + "questions; o200k tokens; recall budget %d tokens; extractive summarizer (cap %d)%n", conversations.size(),
                lines, questions, RECALL_TOKENS, SUMMARY_CAP));
        out.append('\n').append(report(rows));
        if (!tuning.isEmpty() && !heldOut.isEmpty()) {
            out.append(String.format(Locale.ROOT, "%nTuning split (conversations 1-%d):%n", TUNING))
                    .append(summary(tuning));
            out.append(String.format(Locale.ROOT, "%nHeld-out split (conversations %d-%d):%n", TUNING + 1, count))
                    .append(summary(heldOut));
        }
        System.out.println(out);
    }

    /** Imports one conversation through every memory and asks every question of each, with each recall set-up. */
    static void run(SittingsConversation conversation, List<Setup> setups, List<Map<String, Row>> rows) {
        MutableClock clock = MutableClock.at(conversation.lines().get(0).time());
        SessionStore store = InMemorySessionStore.create(clock);
        // every memory writes the same log into its own session; recall indexes the buffer's session once
        // per set-up and is given each memory's own view, which it matches to that log (the same messages)
        List<ChatMemory> memories = new ArrayList<>();
        List<Strategy> strategies = new ArrayList<>();
        String only = System.getProperty("longmemory.memories", "");
        for (Strategy strategy : strategies()) {
            // -Dlongmemory.memories=summary-buffer: the buffer (the baseline) and the memories named so
            if (only.isEmpty() || strategy.name().equals(BUFFER) || strategy.name().startsWith(only)) {
                strategies.add(strategy);
            }
        }
        for (int m = 0; m < strategies.size(); m++) {
            memories.add(strategies.get(m).memory().apply(store, SESSION + m));
        }
        for (ChatMemory memory : memories) {
            memory.add(SystemMessage.from(SittingsConversation.SYSTEM));
        }
        for (SittingsConversation.Line line : conversation.lines()) {
            clock.set(line.time());
            ChatMessage message = line.first() ? UserMessage.from(line.text()) : AiMessage.from(line.text());
            for (ChatMemory memory : memories) {
                memory.add(message);
            }
        }
        clock.set(conversation.lines().get(conversation.lines().size() - 1).time().plusSeconds(3_600));
        List<List<ChatMessage>> views = new ArrayList<>();
        for (ChatMemory memory : memories) {
            views.add(memory.messages());
        }
        String bufferSession = SESSION + 0;
        InvocationContext context = InvocationContext.builder().chatMemoryId(bufferSession).build();
        List<RecallContentRetriever> retrievers = new ArrayList<>();
        List<RetrievalAugmentor> augmentors = new ArrayList<>();
        for (Setup setup : setups) {
            RecallContentRetriever retriever = setup.retriever().apply(store);
            retrievers.add(retriever);
            augmentors.add(retriever.augmentor());
        }
        String debug = System.getProperty("longmemory.debug", "");
        for (Question question : conversation.questions()) {
            UserMessage asked = UserMessage.from(question.text());
            for (int m = 0; m < strategies.size(); m++) {
                List<ChatMessage> view = views.get(m);
                String viewText = LongMemoryBenchmark.text(view);
                long viewTokens = TOKENIZER.estimateTokenCountInMessages(view);
                long questionTokens = TOKENIZER.estimateTokenCountInMessage(asked);
                record(rows, strategies.get(m).name(), 0, conversation, question, viewText, viewTokens + questionTokens, 0);
                for (int s = 0; s < setups.size(); s++) {
                    Metadata metadata = Metadata.builder().chatMessage(asked).chatMemory(view)
                            .invocationContext(context).build();
                    UserMessage sent = (UserMessage) augmentors.get(s).augment(new AugmentationRequest(asked, metadata))
                            .chatMessage();
                    String recalled = sent.singleText().substring(question.text().length());
                    long sentTokens = TOKENIZER.estimateTokenCountInMessage(sent);
                    String name = strategies.get(m).name() + " + " + setups.get(s).label();
                    boolean answered = record(rows, name, setups.get(s).budget(), conversation, question, viewText + "\n" + recalled,
                            viewTokens + sentTokens, recalled.isEmpty() ? 0 : sentTokens - questionTokens);
                    if (!answered && !debug.isEmpty() && question.kind().label().equals(debug)
                            && strategies.get(m).name().equals(SUMMARY_BUFFER) && s == 0) {
                        System.err.println("MISS " + question.text() + " | evidence: "
                                + question.evidence().stream().map(i -> conversation.lines().get(i).text()).toList()
                                + " | answers " + question.answers() + "\n  recalled: " + recalled.replace("\n", "\n    "));
                    }
                }
            }
        }
        for (RecallContentRetriever retriever : retrievers) {
            retriever.close();
        }
    }

    /** Adds one question's outcome to its row; true if the answer (or, for unanswerable, nothing) was there. */
    private static boolean record(List<Map<String, Row>> rows, String name, int budget, SittingsConversation conversation,
                                  Question question, String context, long tokens, long recalled) {
        boolean answered = false;
        for (Map<String, Row> split : rows) {
            answered = record(split.computeIfAbsent(name, n -> new Row(budget)), conversation, question, context, tokens, recalled);
        }
        return answered;
    }

    private static boolean record(Row row, SittingsConversation conversation, Question question, String context,
                                  long tokens, long recalled) {
        boolean unanswerable = question.kind() == QuestionKind.UNANSWERABLE;
        int found = 0;
        for (int line : question.evidence()) {
            found += context.contains(conversation.lines().get(line).text()) ? 1 : 0;
        }
        double evidence = unanswerable ? 0 : (double) found / question.evidence().size();
        boolean answered;
        if (unanswerable) {
            answered = recalled == 0;
        } else if (question.answers().isEmpty()) {
            answered = found == question.evidence().size();
        } else {
            String lower = context.toLowerCase(Locale.ROOT);
            answered = true;
            for (String answer : question.answers()) {
                answered &= lower.contains(answer.toLowerCase(Locale.ROOT));
            }
        }
        row.all.add(evidence, answered, tokens, recalled);
        row.kinds.get(question.kind()).add(evidence, answered, tokens, recalled);
        row.distances.get(Distance.of(conversation, question)).add(evidence, answered, tokens, recalled);
        if (!unanswerable) {
            row.answerable.add(evidence, answered, tokens, recalled);
        }
        return answered;
    }

    static String report(Map<String, Row> rows) {
        Row buffer = rows.get(BUFFER);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "| %-58s | %8s | %8s | %8s | %8s | %8s | %8s | %10s |%n", "memory",
                "tok/q", "% buffer", "evidence", "ev. 6+", "answer", "÷ buffer", "unans. rec"));
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Row> entry : rows.entrySet()) {
            Row row = entry.getValue();
            out.append(String.format(Locale.ROOT, "| %-58s | %,8.0f | %7.1f%% | %7.1f%% | %7.1f%% | %7.1f%% | %8.2f | %9.1f%% |%n",
                    entry.getKey(), row.all.meanTokens(), 100 * row.all.meanTokens() / buffer.all.meanTokens(),
                    100 * row.answerable.evidenceShare(), 100 * row.distances.get(Distance.FAR).evidenceShare(),
                    100 * row.answerable.answerShare(), row.answerable.answerShare() / buffer.answerable.answerShare(),
                    100 * unanswerable(row)));
        }
        out.append("\ntok/q: prompt tokens per question (final view + question + recalled); evidence: share of evidence"
                + " lines in the request (answerable questions); answer: share of answerable questions whose answer text"
                + " is in the view or the recalled turns; unans. rec: recalled tokens per unanswerable question, as a share"
                + " of the budget.\n");
        for (String name : rows.keySet()) {
            if (!name.startsWith(SUMMARY_BUFFER) && !name.startsWith("window (" + WINDOW_MESSAGES) && !name.equals(BUFFER)) {
                continue;
            }
            Row row = rows.get(name);
            out.append(String.format(Locale.ROOT, "%n%s, per kind and distance (evidence / answer / tokens, each ÷ the"
                    + " buffer's):%n", name));
            out.append("| | questions | evidence | ÷ buffer | answer | ÷ buffer | tokens ÷ buffer |\n|---|---:|---:|---:|---:|---:|---:|\n");
            for (QuestionKind kind : QuestionKind.values()) {
                out.append(line(kind.label(), row.kinds.get(kind), buffer.kinds.get(kind)));
            }
            for (Distance distance : Distance.values()) {
                if (distance != Distance.NONE) {
                    out.append(line(distance.label, row.distances.get(distance), buffer.distances.get(distance)));
                }
            }
        }
        out.append(targets(rows));
        return out.toString();
    }

    /** One line per summary-buffer + recall set-up: the targets' figures, evidence per kind, and the temporal questions' answers. */
    static String summary(Map<String, Row> rows) {
        Row buffer = rows.get(BUFFER);
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "| %-44s | %5s | %8s | %8s | %6s | %8s | %10s |",
                "summary-buffer + ", "quest.", "tok ÷ b.", "evidence", "ev. 6+", "ans ÷ b.", "unans. rec"));
        for (QuestionKind kind : QuestionKind.values()) {
            if (kind != QuestionKind.UNANSWERABLE) {
                out.append(String.format(Locale.ROOT, " %11s |", kind.label()));
            }
        }
        out.append(" temporal answers |\n");
        for (Map.Entry<String, Row> entry : withRecall(rows).entrySet()) {
            Row row = entry.getValue();
            out.append(String.format(Locale.ROOT, "| %-44s | %5d | %7.1f%% | %7.1f%% | %5.1f%% | %8.2f | %9.1f%% |",
                    entry.getKey(), row.all.questions, 100 * row.all.meanTokens() / buffer.all.meanTokens(),
                    100 * row.answerable.evidenceShare(), 100 * row.distances.get(Distance.FAR).evidenceShare(),
                    row.answerable.answerShare() / buffer.answerable.answerShare(), 100 * unanswerable(row)));
            for (QuestionKind kind : QuestionKind.values()) {
                if (kind != QuestionKind.UNANSWERABLE) {
                    out.append(String.format(Locale.ROOT, " %10.1f%% |", 100 * row.kinds.get(kind).evidenceShare()));
                }
            }
            out.append(String.format(Locale.ROOT, " %15.1f%% |%n", 100 * row.kinds.get(QuestionKind.TEMPORAL).answerShare()));
        }
        return out.toString();
    }

    private static String line(String label, Tally tally, Tally buffer) {
        return String.format(Locale.ROOT, "| %s | %d | %.1f%% | %.2f | %.1f%% | %.2f | %.1f%% |%n", label, tally.questions,
                100 * tally.evidenceShare(), tally.evidenceShare() / buffer.evidenceShare(), 100 * tally.answerShare(),
                tally.answerShare() / buffer.answerShare(), 100 * tally.meanTokens() / buffer.meanTokens());
    }

    private static String targets(Map<String, Row> rows) {
        Row buffer = rows.get(BUFFER);
        StringBuilder out = new StringBuilder("\nTargets (summary-buffer + recall):\n");
        for (Map.Entry<String, Row> entry : withRecall(rows).entrySet()) {
            Row row = entry.getValue();
            double answers = row.answerable.answerShare() / buffer.answerable.answerShare();
            double tokens = row.all.meanTokens() / buffer.all.meanTokens();
            double far = row.distances.get(Distance.FAR).evidenceShare();
            double unanswerable = unanswerable(row);
            out.append(String.format(Locale.ROOT, "  %s: answers %.2f of the buffer's (>= 0.90: %s) at %.1f%% of its tokens"
                            + " (<= 15%%: %s); evidence 6+ back %.1f%% (>= 80%%: %s); unanswerable: %.1f%% of the budget"
                            + " recalled (<= 25%%: %s)%n", entry.getKey(), answers, met(answers >= 0.9), 100 * tokens,
                    met(tokens <= 0.15), 100 * far, met(far >= 0.8), 100 * unanswerable, met(unanswerable <= 0.25)));
        }
        return out.toString();
    }

    /** The summary-buffers with recall, by the set-up's label (the default summary-buffer) or the row's name (the others). */
    private static Map<String, Row> withRecall(Map<String, Row> rows) {
        Map<String, Row> found = new LinkedHashMap<>();
        for (Map.Entry<String, Row> entry : rows.entrySet()) {
            if (entry.getKey().startsWith("summary-buffer (") && entry.getValue().budget > 0) {
                found.put(entry.getKey().startsWith(SUMMARY_BUFFER + " + ") ? entry.getKey().substring(SUMMARY_BUFFER.length() + 3)
                        : entry.getKey(), entry.getValue());
            }
        }
        return found;
    }

    /** Recalled tokens per unanswerable question, as a share of the row's recall budget (0 without recall). */
    private static double unanswerable(Row row) {
        return row.budget == 0 ? 0 : row.kinds.get(QuestionKind.UNANSWERABLE).meanRecalled() / row.budget;
    }

    private static String met(boolean met) {
        return met ? "met" : "NOT met";
    }
}
