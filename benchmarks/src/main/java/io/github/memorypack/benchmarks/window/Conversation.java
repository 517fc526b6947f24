package io.github.memorypack.benchmarks.window;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A deterministic synthetic conversation: alternating user and assistant messages of realistic,
 * varied length (log-normal word counts; in o200k tokens users a median of 39, up to 566, assistants
 * a median of 206, up to 1,661), prose with numbers, identifiers, bullet lists and code.
 *
 * <p>The same seed always gives the same text, so every run and every memory sees the same
 * conversation. Message {@code i} of the conversation is drawn from a fixed pool of
 * {@value #POOL_PAIRS} user/assistant pairs (pair {@code (i / 2) % POOL_PAIRS}): long histories
 * share message objects, which keeps 100,000-message histories small in memory without changing
 * what a memory does per message. Not thread-safe: each benchmark thread has its own.
 */
final class Conversation {

    /** Distinct user/assistant pairs; histories cycle through them. */
    static final int POOL_PAIRS = 4096;

    private static final long SEED = 0x5EED_CAFEL;

    private static final String[] WORDS = ("the a an of to and in is it that for on with as this be are was "
            + "you I we they can will would should could not but or if then so because when which what how why "
            + "memory session store window token message history summary user assistant model request response "
            + "chat context limit budget cost latency cache index log entry state version append read write "
            + "file disk lock thread process crash retry timeout error exception stack trace config setting "
            + "deploy build test release branch commit merge review change feature bug fix issue ticket "
            + "customer order invoice payment refund shipping address account password email phone support "
            + "travel flight hotel booking trip itinerary weather forecast meeting calendar schedule deadline "
            + "project team manager report quarter revenue growth margin forecast plan risk decision goal "
            + "recipe dinner garden running training music movie book chapter author library language "
            + "database query table column index migration schema backup replica cluster node shard key "
            + "please thanks sure right exactly maybe probably definitely usually sometimes always never "
            + "first second next last previous earlier later today tomorrow yesterday morning evening week "
            + "important simple complex quick slow large small new old better worse different similar "
            + "example option approach solution problem question answer idea reason result detail step "
            + "understand explain describe compare check update remove create configure install upgrade "
            + "remember forget prefer mention suggest recommend consider assume expect happen work run "
            + "performance throughput memory allocation garbage collector heap pause profile benchmark").split(" ");

    private static final String[] IDENTIFIERS = {"WindowChatMemory", "maxMessages", "SessionStore.append",
            "tokenCount", "readLast(20)", "HTTP 429", "p99", "gpt-4o-mini", "2026-03-14", "v1.19.0",
            "ORDER-48213", "user_id", "config.yaml", "~/.m2", "JAVA_HOME", "O(n)", "42 ms", "3.5x", "#1966",
            "retryAfter", "UTF-8", "200 OK", "SELECT *", "null", "IllegalStateException"};

    private static final String[] CODE = {
            "```java\nChatMemory memory = WindowChatMemory.builder()\n        .id(sessionId)\n"
                    + "        .chatMemoryStore(store)\n        .maxMessages(20)\n        .build();\n```",
            "```sql\nSELECT id, total FROM orders WHERE customer_id = ? ORDER BY created_at DESC LIMIT 10;\n```",
            "```bash\nmvn -B -q verify && java -jar target/app.jar --port 8080\n```",
            "```json\n{\"session\": \"a1b2\", \"maxTokens\": 2000, \"model\": \"gpt-4o-mini\"}\n```",
            "```python\nfor i, row in enumerate(rows):\n    if row['status'] != 'ok':\n        print(i, row)\n```"};

    /** Appends to a pre-filled log go in batches of this many entries. */
    private static final int PREFILL_BATCH = 1_000;

    private final List<ChatMessage> users;
    private final List<ChatMessage> assistants;
    /** Entry {@code i} is message {@code i % (2 × POOL_PAIRS)} with its o200k count; counted on first use. */
    private final NewEntry[] countedEntries = new NewEntry[2 * POOL_PAIRS];

    private Conversation(List<ChatMessage> users, List<ChatMessage> assistants) {
        this.users = users;
        this.assistants = assistants;
    }

    /** The conversation every benchmark uses (deterministic). */
    static Conversation standard() {
        SplittableRandom random = new SplittableRandom(SEED);
        List<ChatMessage> users = new ArrayList<>(POOL_PAIRS);
        List<ChatMessage> assistants = new ArrayList<>(POOL_PAIRS);
        for (int i = 0; i < POOL_PAIRS; i++) {
            users.add(UserMessage.from(text(random, logNormalWords(random, 25, 0.8, 2, 400), false)));
            assistants.add(AiMessage.from(text(random, logNormalWords(random, 140, 0.7, 5, 1_200), true)));
        }
        return new Conversation(List.copyOf(users), List.copyOf(assistants));
    }

    /** Message {@code i} of the conversation: even indices are user messages, odd ones assistant replies. */
    ChatMessage message(long i) {
        int pair = (int) ((i / 2) % POOL_PAIRS);
        return i % 2 == 0 ? users.get(pair) : assistants.get(pair);
    }

    /** Messages {@code from} (inclusive) to {@code to} (exclusive). */
    List<ChatMessage> messages(long from, long to) {
        List<ChatMessage> messages = new ArrayList<>((int) (to - from));
        for (long i = from; i < to; i++) {
            messages.add(message(i));
        }
        return messages;
    }

    /**
     * Appends messages {@code 0 .. count - 1} to a session log as a memory's {@code add} would have
     * stored them (with their o200k token counts when {@code withTokenCounts}, else
     * {@link io.github.memorypack.core.Entry#UNKNOWN_TOKENS}), but in batches: pre-filling 100,000
     * messages one by one through a memory would count each one's tokens again on every iteration.
     */
    void prefill(SessionStore store, String sessionId, int count, boolean withTokenCounts) {
        for (int from = 0; from < count; from += PREFILL_BATCH) {
            int to = Math.min(count, from + PREFILL_BATCH);
            List<NewEntry> batch = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                batch.add(withTokenCounts ? countedEntry(i) : NewEntry.of(message(i)));
            }
            store.append(sessionId, batch);
        }
    }

    /**
     * How many of the messages before {@code end} fit, newest first, into {@code maxTokens} as
     * {@code estimator} counts them one by one (used to pre-fill a token window at its steady state).
     */
    int tailFitting(long end, int maxTokens, TokenCountEstimator estimator) {
        int tokens = 0;
        int count = 0;
        for (long i = end - 1; i >= 0; i--) {
            tokens += estimator.estimateTokenCountInMessage(message(i));
            if (tokens > maxTokens) {
                break;
            }
            count++;
        }
        return count;
    }

    private NewEntry countedEntry(long i) {
        int slot = (int) (i % countedEntries.length);
        if (countedEntries[slot] == null) {
            ChatMessage message = message(i);
            countedEntries[slot] = NewEntry.of(message, Tokenizers.o200k().estimateTokenCountInMessage(message));
        }
        return countedEntries[slot];
    }

    private static int logNormalWords(SplittableRandom random, double median, double sigma, int min, int max) {
        double words = median * Math.exp(sigma * gaussian(random));
        return (int) Math.max(min, Math.min(max, Math.round(words)));
    }

    private static double gaussian(SplittableRandom random) {
        // Box–Muller; SplittableRandom has no nextGaussian on Java 17
        double u = 1.0 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * v);
    }

    private static String text(SplittableRandom random, int words, boolean assistant) {
        StringBuilder text = new StringBuilder(words * 7);
        int sentence = 0;
        int sentenceLength = 6 + random.nextInt(18);
        for (int w = 0; w < words; w++) {
            if (assistant && sentence == 0 && w > 0 && random.nextInt(12) == 0) {
                text.append(random.nextInt(3) == 0 ? "\n\n" + CODE[random.nextInt(CODE.length)] + "\n\n" : "\n- ");
            }
            String word = random.nextInt(14) == 0 ? IDENTIFIERS[random.nextInt(IDENTIFIERS.length)]
                    : random.nextInt(25) == 0 ? Integer.toString(random.nextInt(10_000))
                    : WORDS[random.nextInt(WORDS.length)];
            if (sentence == 0) {
                word = Character.toUpperCase(word.charAt(0)) + word.substring(1);
            } else {
                text.append(random.nextInt(9) == 0 ? ", " : " ");
            }
            text.append(word);
            if (++sentence == sentenceLength || w == words - 1) {
                text.append(random.nextInt(5) == 0 ? "?" : ".");
                if (w < words - 1) {
                    text.append(' ');
                }
                sentence = 0;
                sentenceLength = 6 + random.nextInt(18);
            }
        }
        return text.toString();
    }
}
