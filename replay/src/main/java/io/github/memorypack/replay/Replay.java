package io.github.memorypack.replay;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.query.Metadata;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.TokenAccounting;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.Supplier;

/**
 * Replays a {@link Conversation} through one memory exactly as {@code AiServices} drives it (add the
 * system message, read the view, send view + user message, add the user message, add the reply) and
 * measures every request: its prompt tokens (our estimate; the provider's count too when a real
 * model answers), and at each probe which of its facts the request carries.
 *
 * <p>At the start of every sitting the store is opened again and a new memory built on it, as a
 * restarted application would; the token ledger lives on across sittings. Without a model the
 * assistant's reply is the script's answer, so the run is deterministic.
 */
public final class Replay {

    /** What cached input tokens cost by default, as a share of uncached ones (Anthropic's and OpenAI's newest models). */
    public static final double DEFAULT_CACHED_PRICE_FACTOR = 0.1;

    /** The application's system message in every replay. */
    public static final SystemMessage SYSTEM = SystemMessage.from(
            "You are a friendly travel planner. Keep the traveller's preferences and constraints in mind.");
    /** The session id the replayed user talks under. */
    public static final String SESSION = "ana";
    /** A prompt cache serves a shared prefix in blocks of this many tokens (OpenAI). */
    public static final int CACHE_BLOCK = 128;
    /** A prompt cache serves nothing of a prefix shorter than this (OpenAI). */
    public static final int CACHE_MINIMUM = 1_024;

    private Replay() {
    }

    /** Told after every turn; runs on the replaying thread. */
    @FunctionalInterface
    public interface Progress {
        void turnDone(String strategy, int done, int total);

        static Progress none() {
            return (strategy, done, total) -> { };
        }
    }

    /**
     * What a retrieval augmentor adds to a request's user message (recall), set up on one sitting's
     * store. The augmented message goes out with the request; the memory keeps the user's own words,
     * as {@code AiServices} does with {@code storeRetrievedContentInChatMemory(false)}.
     */
    public interface Augmentation extends AutoCloseable {

        /** The user message as the request carries it. */
        UserMessage augment(Object memoryId, List<ChatMessage> view, UserMessage user);

        @Override
        void close();

        /** Leaves every message as it is. */
        static Augmentation none() {
            return of(null, () -> { });
        }

        /**
         * Augments through {@code augmentor} exactly as {@code AiServices} calls it (the memory id and
         * the view in the query's metadata); {@code close} closes {@code resource}.
         */
        static Augmentation of(RetrievalAugmentor augmentor, Runnable resource) {
            return new Augmentation() {
                @Override
                public UserMessage augment(Object memoryId, List<ChatMessage> view, UserMessage user) {
                    if (augmentor == null) {
                        return user;
                    }
                    Metadata metadata = Metadata.builder().chatMessage(user).chatMemory(view)
                            .invocationContext(InvocationContext.builder().chatMemoryId(memoryId).build()).build();
                    return (UserMessage) augmentor.augment(new AugmentationRequest(user, metadata)).chatMessage();
                }

                @Override
                public void close() {
                    resource.run();
                }
            };
        }
    }

    /**
     * What one strategy cost and kept.
     *
     * @param strategy         its label
     * @param tokens           estimated prompt tokens of each request, in order
     * @param reportedTokens   provider-reported input tokens of each request, {@code -1} where none
     * @param factsFound       probe facts present in their probe's request
     * @param factsTotal       probe facts asked for
     * @param missingFacts     the probe facts not present
     * @param report           the ledger: requests, summarizer calls and tokens
     * @param cachedTokens     estimated prompt tokens of each request a provider's prompt cache would
     *                         serve: the prefix it shares with the previous request, in whole blocks of
     *                         {@value #CACHE_BLOCK} tokens, once that is at least {@value #CACHE_MINIMUM}
     *                         tokens (how OpenAI caches)
     * @param reportedCachedTokens provider-reported cached input tokens of each request, {@code -1} where none
     */
    public record Result(String strategy, int[] tokens, int[] reportedTokens, int factsFound, int factsTotal,
                         List<String> missingFacts, TokenAccounting.Report report, int[] cachedTokens,
                         int[] reportedCachedTokens) {

        public Result {
            tokens = tokens.clone();
            reportedTokens = reportedTokens.clone();
            missingFacts = List.copyOf(missingFacts);
            cachedTokens = cachedTokens.clone();
            reportedCachedTokens = reportedCachedTokens.clone();
        }

        @Override
        public int[] cachedTokens() {
            return cachedTokens.clone();
        }

        @Override
        public int[] reportedCachedTokens() {
            return reportedCachedTokens.clone();
        }

        /** Prompt tokens a prompt cache would serve, over all requests (estimated). */
        public long cachedTotal() {
            return Arrays.stream(cachedTokens).asLongStream().sum();
        }

        /** {@link #cachedTotal()} as a share of all prompt tokens. */
        public double cachedShare() {
            long total = totalTokens();
            return total == 0 ? 0 : (double) cachedTotal() / total;
        }

        /**
         * What the prompts cost in uncached-token units when cached tokens are billed at
         * {@code cachedPriceFactor} of the price: uncached + factor x cached.
         */
        public double effectiveTokens(double cachedPriceFactor) {
            return Replay.effectiveTokens(totalTokens(), cachedTotal(), cachedPriceFactor);
        }

        /** Provider-reported cached input tokens, or {@code -1} when no request reported them. */
        public long reportedCachedTotal() {
            long sum = Arrays.stream(reportedCachedTokens).filter(t -> t >= 0).asLongStream().sum();
            return Arrays.stream(reportedCachedTokens).anyMatch(t -> t >= 0) ? sum : -1;
        }

        @Override
        public int[] tokens() {
            return tokens.clone();
        }

        @Override
        public int[] reportedTokens() {
            return reportedTokens.clone();
        }

        public int requests() {
            return tokens.length;
        }

        public long totalTokens() {
            return Arrays.stream(tokens).asLongStream().sum();
        }

        public double meanTokens() {
            return tokens.length == 0 ? 0 : (double) totalTokens() / tokens.length;
        }

        public int maxTokens() {
            return Arrays.stream(tokens).max().orElse(0);
        }

        /** Nearest-rank 95th percentile. */
        public int p95Tokens() {
            if (tokens.length == 0) {
                return 0;
            }
            int[] sorted = tokens.clone();
            Arrays.sort(sorted);
            return sorted[(int) Math.ceil(0.95 * sorted.length) - 1];
        }

        /** Sum of the provider-reported input tokens, or {@code -1} when no request had them. */
        public long reportedTotal() {
            long sum = Arrays.stream(reportedTokens).filter(t -> t >= 0).asLongStream().sum();
            return Arrays.stream(reportedTokens).anyMatch(t -> t >= 0) ? sum : -1;
        }

        public long summarizerCalls() {
            return report.summarizerCalls();
        }

        /** Tokens sent to and returned by the summarizer (estimated). */
        public long summarizerTokens() {
            return report.summarizerInputTokens() + report.summarizerOutputTokens();
        }

        /** Chat prompt tokens plus summarizer tokens. */
        public long allTokens() {
            return totalTokens() + summarizerTokens();
        }
    }

    /**
     * Replays {@code conversation} through a memory built per sitting by {@code memories}.
     *
     * @param name      the strategy's label in the result
     * @param memories  builds the memory on a store, recording into the given ledger
     * @param augmentations sets up what augments each request on a store ({@link Augmentation#none()})
     * @param stores    opens the store; called once per sitting
     * @param model     answers each request, or {@code null} to use the script's answers
     */
    public static Result run(String name, Conversation conversation, Supplier<SessionStore> stores,
                             BiFunction<SessionStore, TokenAccounting, ChatMemory> memories,
                             Function<SessionStore, Augmentation> augmentations,
                             TokenCountEstimator tokenizer, ChatModel model, Progress progress) {
        TokenAccounting accounting = TokenAccounting.create();
        Map<ChatMessage, Integer> counted = new HashMap<>();
        int total = conversation.turns().size();
        int[] tokens = new int[total];
        int[] reported = new int[total];
        int[] cached = new int[total];
        int[] reportedCached = new int[total];
        List<ChatMessage> previous = List.of();
        List<String> missing = new ArrayList<>();
        int found = 0;
        int asked = 0;
        int done = 0;
        ChatMemory memory = null;
        for (Conversation.Sitting sitting : conversation.sittings()) {
            SessionStore store = stores.get();
            memory = memories.apply(store, accounting);
            try (Augmentation augmentation = augmentations.apply(store)) {
                for (Conversation.Turn turn : sitting.turns()) {
                    UserMessage user = UserMessage.from(turn.user());
                    memory.add(SYSTEM);
                    List<ChatMessage> view = memory.messages();
                    List<ChatMessage> request = new ArrayList<>(view);
                    request.add(augmentation.augment(memory.id(), view, user));
                    ToIntFunction<ChatMessage> count = m -> counted.computeIfAbsent(m, tokenizer::estimateTokenCountInMessage);
                    int estimate = Tokenizers.TOKENS_PER_REPLY;
                    for (ChatMessage message : request) {
                        estimate += count.applyAsInt(message);
                    }
                    cached[done] = cachedTokens(previous, request, count);
                    previous = request;
                    AiMessage reply;
                    TokenUsage usage = null;
                    if (model == null) {
                        reply = AiMessage.from(turn.assistant());
                    } else {
                        ChatResponse response = model.chat(ChatRequest.builder().messages(request).build());
                        reply = response.aiMessage();
                        usage = response.tokenUsage();
                    }
                    accounting.recordRequest(memory.id(), estimate, usage);
                    tokens[done] = estimate;
                    reported[done] = usage == null || usage.inputTokenCount() == null ? -1 : usage.inputTokenCount();
                    reportedCached[done] = usage instanceof OpenAiTokenUsage openAi && openAi.inputTokensDetails() != null
                            && openAi.inputTokensDetails().cachedTokens() != null
                            ? openAi.inputTokensDetails().cachedTokens() : -1;
                    String text = textOf(request);
                    for (String fact : turn.facts()) {
                        asked++;
                        if (text.contains(fact)) {
                            found++;
                        } else {
                            missing.add(fact);
                        }
                    }
                    memory.add(user);
                    memory.add(reply);
                    done++;
                    progress.turnDone(name, done, total);
                }
            }
        }
        return new Result(name, tokens, reported, found, asked, missing, accounting.report(memory.id()), cached,
                reportedCached);
    }

    /**
     * The prompt tokens of {@code request} a provider's prompt cache would serve when it follows
     * {@code previous}: the messages the two share from the start (equal message by message), in whole
     * blocks of {@value #CACHE_BLOCK} tokens, and nothing when that prefix is under
     * {@value #CACHE_MINIMUM} tokens (how OpenAI caches). Every replay's cached-prefix figures come
     * from here.
     *
     * @param tokens the token count of one message
     */
    public static int cachedTokens(List<ChatMessage> previous, List<ChatMessage> request,
                                   ToIntFunction<ChatMessage> tokens) {
        int shared = 0;
        for (int i = 0; i < request.size() && i < previous.size() && previous.get(i).equals(request.get(i)); i++) {
            shared += tokens.applyAsInt(request.get(i));
        }
        return cacheable(shared);
    }

    /**
     * What {@code totalTokens} prompt tokens cost in uncached-token units when {@code cachedTokens} of
     * them are billed at {@code cachedPriceFactor} of the price: uncached + factor x cached.
     */
    public static double effectiveTokens(long totalTokens, long cachedTokens, double cachedPriceFactor) {
        return totalTokens - cachedTokens + cachedPriceFactor * cachedTokens;
    }

    /** The part of a shared prefix a prompt cache serves: whole blocks, and nothing below the minimum. */
    static int cacheable(int sharedTokens) {
        return sharedTokens < CACHE_MINIMUM ? 0 : sharedTokens / CACHE_BLOCK * CACHE_BLOCK;
    }

    /** The text a model would read in {@code request}: system, user and AI text, one message a line. */
    static String textOf(List<ChatMessage> request) {
        StringBuilder text = new StringBuilder();
        for (ChatMessage message : request) {
            if (message instanceof SystemMessage system) {
                text.append(system.text()).append('\n');
            } else if (message instanceof UserMessage user) {
                user.contents().stream().filter(TextContent.class::isInstance)
                        .forEach(c -> text.append(((TextContent) c).text()).append('\n'));
            } else if (message instanceof AiMessage ai && ai.text() != null) {
                text.append(ai.text()).append('\n');
            }
        }
        return text.toString();
    }
}
