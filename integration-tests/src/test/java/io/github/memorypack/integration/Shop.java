package io.github.memorypack.integration;

import dev.langchain4j.agent.tool.CompensateFor;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.guardrail.OutputGuardrail;
import dev.langchain4j.guardrail.OutputGuardrailResult;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.memory.ChatMemoryAccess;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Reply;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The conversation every LangChain4j path is tried on: a tea shop assistant with tools (stock,
 * a compensable booking, a payment that fails), a scripted model that answers each request from
 * what it carries ({@link Brain}), and the output guardrails the paths need.
 */
final class Shop {

    static final String SYSTEM = "You are a tea shop assistant.";
    static final String SYSTEM_LINE = "system: " + SYSTEM;

    // the warm-up: two tool turns and a plain one, so windows cut and summaries fold before the turn under test
    static final String ASK_TEA = "Is tea in stock?";
    static final String ASK_COFFEE = "And coffee?";
    static final String INTRODUCE = "Hello, I am Bo and I live in Porto.";
    static final List<String> WARM_UP = List.of(ASK_TEA, ASK_COFFEE, INTRODUCE);

    /** Answered differently every time, in words a summary keeps ({@link #RECOMMENDATION}). */
    static final String ASK_RECOMMENDATION = "Which green tea do you recommend?";
    static final String RECOMMENDATION = "Answer %d: try the Sencha from Shizuoka, 12 euros a pack.";
    /** A stock question of its own (the interleaving test holds its tool call). */
    static final String ASK_MATCHA = "Is matcha in stock?";
    /** Another stock question, for the second of two requests at once. */
    static final String ASK_SENCHA = "Is sencha in stock?";
    /** One assistant message with two tool calls: the booking succeeds, the payment fails. */
    static final String BOOK_AND_PAY = "Book a table for two and pay for it.";
    /** Two rounds: the booking, then (after its result) the payment, which fails. */
    static final String BOOK_THEN_PAY = "Book a table for four, then pay for it.";
    /** Answered with a secret that the {@link NoSecrets} guardrail removes. */
    static final String ASK_SECRET = "Tell me the secret.";
    static final String SECRET_ANSWER = "The secret code is 1234.";
    /** Answered in plain words first; the {@link JsonOnly} guardrail reprompts. */
    static final String ASK_SUM = "What is 2+2?";
    static final String BAD_SUM_ANSWER = "four";
    static final String REPROMPT = "Answer with JSON only.";
    static final String GOOD_SUM_ANSWER = "{\"answer\": 4}";
    /** A stock question answered with a tool call and then, after the guardrail, with a secret. */
    static final String ASK_STOCK_SECRET = "Check the matcha stock and tell me the secret.";
    /** A stock question whose first answer is not JSON. */
    static final String ASK_STOCK_SUM = "Check the matcha stock: what is 2+2?";

    private Shop() {
    }

    /** The AI service users write. */
    interface Assistant extends ChatMemoryAccess {
        @dev.langchain4j.service.SystemMessage(SYSTEM)
        String chat(@MemoryId String session, @UserMessage String text);
    }

    /** The same assistant, streaming. */
    interface StreamingAssistant {
        @dev.langchain4j.service.SystemMessage(SYSTEM)
        TokenStream chat(@MemoryId String session, @UserMessage String text);
    }

    /** {@code AiServices} as a careful user sets it up: tools, compensation, guardrails, a bound on tool loops. */
    static AiServices<Assistant> assistant(OpenAiTestServer server, ChatMemoryProvider memories, Tools tools) {
        return AiServices.builder(Assistant.class).chatModel(server.model()).chatMemoryProvider(memories)
                .tools(tools).compensateOnToolErrors(true).outputGuardrails(new NoSecrets(), new JsonOnly())
                .maxToolCallingRoundTrips(10);
    }

    /** Runs the warm-up turns. */
    static void warmUp(Assistant assistant, String session) {
        for (String text : WARM_UP) {
            assistant.chat(session, text);
        }
    }

    /** The shop's tools; they count and record their calls. */
    static final class Tools {

        final AtomicInteger stockChecks = new AtomicInteger();
        final List<String> bookings = Collections.synchronizedList(new ArrayList<>());
        final List<String> cancellations = Collections.synchronizedList(new ArrayList<>());
        final List<String> stockThreads = Collections.synchronizedList(new ArrayList<>());
        final List<String> stockItems = Collections.synchronizedList(new ArrayList<>());
        /** When set, a stock check of {@link #heldItem} counts {@link #held} down and waits for {@link #release}. */
        volatile String heldItem;
        /** When set, runs in the held stock check, on the request's thread, before {@link #held} counts down. */
        volatile Runnable onHeld;
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Tool("How many packs of an item are in stock")
        String stock(String item) throws InterruptedException {
            int check = stockChecks.incrementAndGet();
            stockThreads.add(Thread.currentThread().getName());
            stockItems.add(item);
            if (item.equals(heldItem)) {
                Runnable first = onHeld;
                if (first != null) {
                    first.run();
                }
                held.countDown();
                if (!release.await(TwoRequests.HELD_AT_MOST, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the stock check of " + item);
                }
            }
            return item + ": 12 packs (check " + check + ")";
        }

        @Tool("Books a table in the tea room")
        String book(int people) {
            bookings.add("table for " + people);
            return "table for " + people + " booked";
        }

        @CompensateFor("book")
        void cancelBooking(int people) {
            cancellations.add("table for " + people);
        }

        @Tool("Pays an amount with the user's card")
        String pay(String amount) {
            throw new IllegalStateException("card declined for " + amount);
        }
    }

    /**
     * The scripted model: answers a request from its messages. A request that ends with a user
     * message or tool results gets the next round of tool calls planned for the latest user message
     * (rounds already answered in the request are counted), else a text answer: a fixed one for
     * some questions, otherwise {@code "Answer <n>."} (or {@link #RECOMMENDATION}) with a number that
     * grows with every answer, so two attempts of one request never answer alike. Tool call ids are unique per server.
     */
    static final class Brain implements Function<Request, Reply> {

        private static final Map<String, List<List<String[]>>> PLANS = Map.of(
                ASK_TEA, List.of(List.<String[]>of(new String[] {"stock", "{\"item\":\"tea\"}"})),
                ASK_COFFEE, List.of(List.<String[]>of(new String[] {"stock", "{\"item\":\"coffee\"}"})),
                BOOK_AND_PAY, List.of(List.of(new String[] {"book", "{\"people\":2}"},
                        new String[] {"pay", "{\"amount\":\"40 EUR\"}"})),
                BOOK_THEN_PAY, List.of(List.<String[]>of(new String[] {"book", "{\"people\":4}"}),
                        List.<String[]>of(new String[] {"pay", "{\"amount\":\"80 EUR\"}"})),
                ASK_MATCHA, List.of(List.<String[]>of(new String[] {"stock", "{\"item\":\"matcha\"}"})),
                ASK_SENCHA, List.of(List.<String[]>of(new String[] {"stock", "{\"item\":\"sencha\"}"})),
                ASK_STOCK_SECRET, List.of(List.<String[]>of(new String[] {"stock", "{\"item\":\"matcha\"}"})),
                ASK_STOCK_SUM, List.of(List.<String[]>of(new String[] {"stock", "{\"item\":\"matcha\"}"})));
        private static final Map<String, String> ANSWERS = Map.of(
                ASK_SECRET, SECRET_ANSWER,
                ASK_STOCK_SECRET, SECRET_ANSWER,
                ASK_SUM, BAD_SUM_ANSWER,
                ASK_STOCK_SUM, BAD_SUM_ANSWER,
                REPROMPT, GOOD_SUM_ANSWER);

        private final AtomicInteger callIds = new AtomicInteger();
        private final AtomicInteger answers = new AtomicInteger();

        @Override
        public Reply apply(Request request) {
            List<String> history = request.history();
            int lastUser = -1;
            for (int i = history.size() - 1; i >= 0 && lastUser < 0; i--) {
                if (history.get(i).startsWith("user: ")) {
                    lastUser = i;
                }
            }
            String last = request.lastLine();
            boolean awaitsModel = last.startsWith("user: ") || last.startsWith("tool ");
            if (lastUser >= 0 && awaitsModel) {
                // the question is the first line: RAG appends retrieved content after a blank line
                String question = history.get(lastUser).substring("user: ".length()).split("\n", 2)[0];
                int roundsDone = 0;
                for (int i = lastUser + 1; i < history.size(); i++) {
                    roundsDone += history.get(i).startsWith("assistant: tool_calls[") ? 1 : 0;
                }
                List<List<String[]>> plan = PLANS.getOrDefault(question, List.of());
                if (roundsDone < plan.size()) {
                    List<String[]> round = plan.get(roundsDone);
                    ToolExecutionRequest[] calls = new ToolExecutionRequest[round.size()];
                    for (int i = 0; i < calls.length; i++) {
                        calls[i] = ToolExecutionRequest.builder().id("call_" + callIds.incrementAndGet())
                                .name(round.get(i)[0]).arguments(round.get(i)[1]).build();
                    }
                    return Reply.toolCalls(calls);
                }
                String fixed = ANSWERS.get(question);
                if (fixed != null) {
                    return Reply.text(fixed);
                }
                if (question.equals(ASK_RECOMMENDATION)) {
                    return Reply.text(String.format(RECOMMENDATION, answers.incrementAndGet()));
                }
            }
            return Reply.text("Answer " + answers.incrementAndGet() + ".");
        }
    }

    /** Removes an answer that leaks a secret from the memory (LangChain4j: clear() and re-add the rest). */
    static final class NoSecrets implements OutputGuardrail {
        @Override
        public OutputGuardrailResult validate(AiMessage response) {
            String text = response.text();
            return text != null && text.contains("secret code")
                    ? fatalWithMessageRemoval("the answer leaks a secret") : success();
        }
    }

    /** Reprompts a plain-words answer to the sum (LangChain4j: reads messages() and asks again). */
    static final class JsonOnly implements OutputGuardrail {
        @Override
        public OutputGuardrailResult validate(AiMessage response) {
            return BAD_SUM_ANSWER.equals(response.text()) ? reprompt("not JSON", REPROMPT) : success();
        }
    }
}
