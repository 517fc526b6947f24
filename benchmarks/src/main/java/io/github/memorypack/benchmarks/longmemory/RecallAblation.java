package io.github.memorypack.benchmarks.longmemory;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.query.Metadata;
import io.github.memorypack.benchmarks.longmemory.SittingsBenchmark.Row;
import io.github.memorypack.benchmarks.longmemory.SittingsBenchmark.Setup;
import io.github.memorypack.benchmarks.longmemory.SittingsConversation.Question;
import io.github.memorypack.benchmarks.longmemory.SittingsConversation.QuestionKind;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.recall.RecallContentRetriever;
import io.github.memorypack.testkit.MutableClock;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Both long-memory benchmarks in one run for a list of recall variants, summary-buffer (2,000) + recall only:
 * the planted-facts one (share of questions whose fact turn is in the request, tokens ÷ the buffer's) and the
 * multi-session one (evidence, tokens ÷ buffer, answers ÷ buffer's, unanswerable recall ÷ budget), one row per
 * variant; with {@code -Dablation.oracle=true}, for the first variant, why each missed evidence line of the
 * multi-session benchmark was missed.
 *
 * <pre>
 * java -cp ... io.github.memorypack.benchmarks.longmemory.RecallAblation
 *   -Dablation.variants="label=lexical:k=v,k=v;label2=hybrid:..." -Dablation.conversations=1-5
 * </pre>
 *
 * A variant's {@code k=v} pairs are set as {@code recall.ablate.k} system properties while it runs.
 */
public final class RecallAblation {

    private RecallAblation() {
    }

    /** A recall variant: its label, lexical or hybrid, and the switches it sets. */
    record Variant(String label, boolean hybrid, Map<String, String> knobs) {
    }

    static List<Variant> variants(String spec) {
        List<Variant> variants = new ArrayList<>();
        for (String one : spec.split(";")) {
            if (one.isBlank()) {
                continue;
            }
            String label = one.substring(0, one.indexOf('=')).strip();
            String rest = one.substring(one.indexOf('=') + 1);
            String setup = rest.contains(":") ? rest.substring(0, rest.indexOf(':')) : rest;
            Map<String, String> knobs = new LinkedHashMap<>();
            if (rest.contains(":")) {
                for (String pair : rest.substring(rest.indexOf(':') + 1).split(",")) {
                    if (!pair.isBlank()) {
                        knobs.put(pair.substring(0, pair.indexOf('=')).strip(), pair.substring(pair.indexOf('=') + 1).strip());
                    }
                }
            }
            variants.add(new Variant(label, setup.strip().equals("hybrid"), knobs));
        }
        return variants;
    }

    static Function<SessionStore, RecallContentRetriever> retriever(Variant variant) {
        return store -> {
            RecallContentRetriever.Builder builder = RecallContentRetriever.builder().store(store)
                    .maxTokens(RecallContentRetriever.DEFAULT_MAX_TOKENS);
            if (variant.knobs().containsKey("minScore")) {
                builder.minScore(Double.parseDouble(variant.knobs().get("minScore")));
            }
            return (variant.hybrid() ? hybrid(builder) : builder.lexicalOnly()).build();
        };
    }

    /** {@code hybrid()}, or, on code that has no such method (hybrid was the default), the builder as it is. */
    private static RecallContentRetriever.Builder hybrid(RecallContentRetriever.Builder builder) {
        try {
            return (RecallContentRetriever.Builder) RecallContentRetriever.Builder.class.getMethod("hybrid").invoke(builder);
        } catch (NoSuchMethodException e) {
            return builder;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        List<Variant> variants = variants(System.getProperty("ablation.variants", "current=lexical"));
        String range = System.getProperty("ablation.conversations", "1-5");
        int from = Integer.parseInt(range.substring(0, range.indexOf('-')));
        int to = Integer.parseInt(range.substring(range.indexOf('-') + 1));
        boolean planted = !"false".equals(System.getProperty("ablation.planted"));
        List<SittingsConversation> conversations = new ArrayList<>();
        for (long seed = from; seed <= to; seed++) {
            conversations.add(SittingsConversation.generate(seed));
        }
        List<LongMemoryConversation> plantedConversations = new ArrayList<>();
        for (long[] c : LongMemoryBenchmark.CONVERSATIONS) {
            plantedConversations.add(LongMemoryConversation.generate(c[0], (int) c[1]));
        }
        LongMemoryBenchmark.Strategy summaryBuffer = null;
        LongMemoryBenchmark.Strategy buffer = null;
        for (LongMemoryBenchmark.Strategy strategy : LongMemoryBenchmark.strategies()) {
            summaryBuffer = strategy.name().equals(LongMemoryBenchmark.SUMMARY_BUFFER) ? strategy : summaryBuffer;
            buffer = strategy.name().equals(LongMemoryBenchmark.BUFFER) ? strategy : buffer;
        }
        long bufferTokens = 0;
        if (planted) {
            for (LongMemoryConversation conversation : plantedConversations) {
                bufferTokens += LongMemoryBenchmark.replay(buffer, null, conversation).tokens();
            }
        }
        System.setProperty("longmemory.memories", "summary-buffer");
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "Ablation: multi-session conversations %s;"
                + " summary-buffer (2,000) + recall (800)%n", range));
        out.append(String.format(Locale.ROOT, "| %-40s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s |%n",
                "variant", "planted", "tok ÷ b", "evidence", "tok ÷ b", "ans ÷ b", "unans.", "single", "multi", "temporal"));
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Variant variant : variants) {
            long started = System.nanoTime();
            for (String name : System.getProperties().stringPropertyNames()) {
                if (name.startsWith("recall.ablate.")) {
                    System.clearProperty(name);
                }
            }
            variant.knobs().forEach((k, v) -> System.setProperty("recall.ablate." + k, v));
            Function<SessionStore, RecallContentRetriever> recall = retriever(variant);
            double plantedShare = Double.NaN;
            double plantedTokens = Double.NaN;
            if (planted) {
                LongMemoryBenchmark.Result total = null;
                for (LongMemoryConversation conversation : plantedConversations) {
                    LongMemoryBenchmark.Result result = LongMemoryBenchmark.replay(summaryBuffer, recall, conversation);
                    total = total == null ? result : total.plus(result);
                }
                plantedShare = (double) total.turnFound() / total.questions();
                plantedTokens = (double) total.tokens() / bufferTokens;
            }
            Setup setup = new Setup(variant.label(), recall);
            Map<String, Row> rows = new LinkedHashMap<>();
            for (SittingsConversation conversation : conversations) {
                SittingsBenchmark.run(conversation, List.of(setup), List.of(rows));
            }
            Row base = rows.get(SittingsBenchmark.BUFFER);
            Row row = rows.get(SittingsBenchmark.SUMMARY_BUFFER + " + " + variant.label());
            out.append(String.format(Locale.ROOT, "| %-40s | %7.1f%% | %7.1f%% | %7.1f%% | %7.1f%% | %8.2f | %7.1f%% | %7.1f%% | %7.1f%% | %7.1f%% |%n",
                    variant.label(), 100 * plantedShare, 100 * plantedTokens, 100 * row.answerable.evidenceShare(),
                    100 * row.all.meanTokens() / base.all.meanTokens(),
                    row.answerable.answerShare() / base.answerable.answerShare(),
                    100 * row.kinds.get(QuestionKind.UNANSWERABLE).meanRecalled() / RecallContentRetriever.DEFAULT_MAX_TOKENS,
                    100 * row.kinds.get(QuestionKind.SINGLE_HOP).evidenceShare(),
                    100 * row.kinds.get(QuestionKind.MULTI_HOP).evidenceShare(),
                    100 * row.kinds.get(QuestionKind.TEMPORAL).evidenceShare()));
            if (!PLANTED_FATES.isEmpty()) {
                System.err.println("planted misses of " + variant.label() + ": " + PLANTED_FATES);
                PLANTED_FATES.clear();
            }
            System.err.printf(Locale.ROOT, "done: %s (%.0f s)%n%s", variant.label(), (System.nanoTime() - started) / 1e9,
                    out.substring(out.lastIndexOf("| " + variant.label())));
        }
        System.out.println(out);
        if (Boolean.getBoolean("ablation.oracle")) {
            System.out.println(oracle(variants.get(0), conversations));
        }
    }

    /**
     * For the variant, per missed evidence line of the multi-session benchmark (summary-buffer + recall): was its
     * turn a candidate at all, under the minimum score, cut by the relative cut-off, or below the budget.
     */
    static String oracle(Variant variant, List<SittingsConversation> conversations) throws Exception {
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("recall.ablate.")) {
                System.clearProperty(name);
            }
        }
        variant.knobs().forEach((k, v) -> System.setProperty("recall.ablate." + k, v));
        Class<?> ablation = Class.forName("io.github.memorypack.recall.Ablation");
        Method start = ablation.getDeclaredMethod("startTrace");
        Method trace = ablation.getDeclaredMethod("trace");
        start.setAccessible(true);
        trace.setAccessible(true);
        Class<?> candidateClass = Class.forName("io.github.memorypack.recall.Ablation$Candidate");
        Field turnField = candidateClass.getDeclaredField("turn");
        Field fateField = candidateClass.getDeclaredField("fate");
        turnField.setAccessible(true);
        fateField.setAccessible(true);
        Map<String, Integer> causes = new TreeMap<>();
        Map<String, Map<String, Integer>> byKind = new TreeMap<>();
        int missed = 0;
        int lines = 0;
        for (SittingsConversation conversation : conversations) {
            MutableClock clock = MutableClock.at(conversation.lines().get(0).time());
            SessionStore store = InMemorySessionStore.create(clock);
            ChatMemory memory = SittingsBenchmark.strategies().stream()
                    .filter(s -> s.name().equals(SittingsBenchmark.SUMMARY_BUFFER)).findFirst().orElseThrow()
                    .memory().apply(store, "chat");
            memory.add(SystemMessage.from(SittingsConversation.SYSTEM));
            for (SittingsConversation.Line line : conversation.lines()) {
                clock.set(line.time());
                memory.add(line.first() ? UserMessage.from(line.text()) : AiMessage.from(line.text()));
            }
            clock.set(conversation.lines().get(conversation.lines().size() - 1).time().plusSeconds(3_600));
            // the log index of each line's turn (its user message)
            long[] turnOf = new long[conversation.lines().size()];
            int at = 0;
            long turn = -1;
            for (Entry entry : store.read("chat", 0, Integer.MAX_VALUE)) {
                ChatMessage message = entry.message();
                String text = message instanceof UserMessage u && u.hasSingleText() ? u.singleText()
                        : message instanceof AiMessage a ? a.text() : null;
                if (at < turnOf.length && conversation.lines().get(at).text().equals(text)) {
                    turn = message instanceof UserMessage ? entry.index() : turn;
                    turnOf[at++] = turn;
                }
            }
            List<ChatMessage> view = memory.messages();
            String viewText = LongMemoryBenchmark.text(view);
            RecallContentRetriever retriever = retriever(variant).apply(store);
            RetrievalAugmentor augmentor = retriever.augmentor();
            InvocationContext context = InvocationContext.builder().chatMemoryId("chat").build();
            for (Question question : conversation.questions()) {
                if (question.kind() == QuestionKind.UNANSWERABLE) {
                    continue;
                }
                UserMessage asked = UserMessage.from(question.text());
                Metadata metadata = Metadata.builder().chatMessage(asked).chatMemory(view).invocationContext(context).build();
                start.invoke(null);
                String sent = ((UserMessage) augmentor.augment(new AugmentationRequest(asked, metadata)).chatMessage())
                        .singleText();
                Map<Long, String> fates = new LinkedHashMap<>();
                @SuppressWarnings("unchecked")
                List<Object> candidates = (List<Object>) trace.invoke(null);
                for (Object candidate : candidates) {
                    fates.put(turnField.getLong(candidate), (String) fateField.get(candidate));
                }
                for (int line : question.evidence()) {
                    lines++;
                    String text = conversation.lines().get(line).text();
                    if (viewText.contains(text) || sent.contains(text)) {
                        continue;
                    }
                    missed++;
                    String cause = fates.getOrDefault(turnOf[line], "not a candidate");
                    causes.merge(cause, 1, Integer::sum);
                    byKind.computeIfAbsent(question.kind().label(), k -> new TreeMap<>()).merge(cause, 1, Integer::sum);
                }
            }
            retriever.close();
        }
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%nOracle (%s): %d of %d evidence lines missed%n",
                variant.label(), missed, lines));
        for (Map.Entry<String, Integer> cause : causes.entrySet()) {
            out.append(String.format(Locale.ROOT, "  %-18s %5d (%.1f%%)%n", cause.getKey(), cause.getValue(),
                    100.0 * cause.getValue() / missed));
        }
        byKind.forEach((kind, counts) -> out.append("  ").append(kind).append(": ").append(counts).append('\n'));
        return out.toString();
    }

    /** Fates of planted-facts misses, by cause (with {@code -Dablation.trace=true}). */
    static final Map<String, Integer> PLANTED_FATES = new TreeMap<>();

    static void startTrace() {
        try {
            Method start = Class.forName("io.github.memorypack.recall.Ablation").getDeclaredMethod("startTrace");
            start.setAccessible(true);
            start.invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Records (and prints) what became of the fact turn of a missed planted-facts question. */
    static void plantedMiss(SessionStore store, String session, String question, String factTurn) {
        try {
            long index = -1;
            for (Entry entry : store.read(session, 0, Integer.MAX_VALUE)) {
                if (entry.message() instanceof UserMessage u && u.hasSingleText() && u.singleText().equals(factTurn)) {
                    index = entry.index();
                }
            }
            Method trace = Class.forName("io.github.memorypack.recall.Ablation").getDeclaredMethod("trace");
            trace.setAccessible(true);
            @SuppressWarnings("unchecked")
            List<Object> candidates = (List<Object>) trace.invoke(null);
            String fate = "not a candidate";
            String detail = "";
            Object best = null;
            for (Object candidate : candidates == null ? List.<Object>of() : candidates) {
                Field turn = candidate.getClass().getDeclaredField("turn");
                Field fateField = candidate.getClass().getDeclaredField("fate");
                turn.setAccessible(true);
                fateField.setAccessible(true);
                if (turn.getLong(candidate) == index) {
                    fate = (String) fateField.get(candidate);
                    detail = candidate.toString();
                }
                if ("recalled".equals(fateField.get(candidate)) && best == null) {
                    best = candidate;
                }
            }
            PLANTED_FATES.merge(fate, 1, Integer::sum);
            System.err.println("planted miss [" + fate + "] " + question + " | " + factTurn + " | " + detail
                    + " | first recalled: " + best);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
