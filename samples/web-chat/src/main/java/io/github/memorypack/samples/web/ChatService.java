package io.github.memorypack.samples.web;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Summary;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.SummaryMessage;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.replay.Replay;
import io.github.memorypack.replay.Strategy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The web chat's state: every strategy keeps its own memory of each session, all fed the same turns
 * (memory id {@code <id>.<strategy>} in one store), so each strategy's view and running summary are
 * what it would have sent had it been live all along. A turn reads every strategy's view the way
 * {@code AiServices} does (system message added, view read, user message after it, augmented with the
 * recalled turns for the recall strategies), sends the live one to the model, and adds the question
 * and the answer to every memory. The requests of this run are kept per session, as the server's own
 * record; the running summaries are read from the store, so they survive a restart.
 */
final class ChatService implements AutoCloseable {

    /** Every strategy of the samples, the two with recall among them: what the page compares and can send. */
    static final List<Strategy> STRATEGIES = List.of(Strategy.values());

    /**
     * The demo's limits: small, so that the strategies part ways within the first turns of the scripted
     * conversation (a 4-message window, 200 tokens for summary-buffer's verbatim turns and the token
     * windows, 120-token summaries); the comparison demo uses the defaults.
     */
    static final Strategy.Limits LIMITS = new Strategy.Limits(4, 200, 120);

    /** Session names: letters, digits, {@code _} and {@code -} (the strategy goes after a dot). */
    static final Pattern SESSION = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** One message of a request, as the page shows it. */
    record Shown(String role, String text) {
    }

    /**
     * What one strategy sends (or would send) for a request.
     *
     * @param messages the request: the memory's view, then the new user message
     * @param tokens   its prompt tokens (every message with its framing, plus the reply priming)
     * @param summary  the strategy's running summary after the turn, or {@code null}
     */
    record StrategyRequest(String strategy, List<Shown> messages, int tokens, String summary) {
    }

    /**
     * One request of a session: the live strategy's request went to the model.
     *
     * @param number   1 for the session's first request in this run, then 2, 3…
     * @param live     the live strategy's label
     * @param requests every strategy's request, by label, in {@link Strategy} order
     */
    record Exchange(int number, String live, String user, String answer, Map<String, StrategyRequest> requests) {
    }

    /**
     * A session as the page opens it: the whole conversation, this run's requests, the running summary
     * each summarizing strategy has stored (by label), the script's next line.
     */
    record SessionView(String session, List<Shown> history, List<Exchange> exchanges, Map<String, String> summaries,
                       String nextScriptedLine) {
    }

    private final SessionStore store;
    private final ChatModel model;
    private final Summarizer summarizer;
    private final TokenCountEstimator tokenizer;
    private final OfflineAssistant script;
    private final String mode;
    private final Map<String, List<Exchange>> exchanges = new ConcurrentHashMap<>();
    /** What augments each strategy's requests (recall's augmentor for the recall strategies), opened once. */
    private final Map<Strategy, Replay.Augmentation> augmentations = new LinkedHashMap<>();

    ChatService(SessionStore store, ChatModel model, Summarizer summarizer, TokenCountEstimator tokenizer,
                OfflineAssistant script, String mode) {
        this.store = store;
        this.model = model;
        this.summarizer = summarizer;
        this.tokenizer = tokenizer;
        this.script = script;
        this.mode = mode;
        for (Strategy strategy : STRATEGIES) {
            augmentations.put(strategy, strategy.augmentation(store, tokenizer));
        }
    }

    /** Closes the recall indexes. */
    @Override
    public void close() {
        augmentations.values().forEach(Replay.Augmentation::close);
    }

    String describe() {
        return mode;
    }

    /** The sessions in the store, by the names they were created with (the memory ids' own text), sorted. */
    List<String> sessions() {
        String suffix = "." + Strategy.BUFFER.label();
        return store.memoryIds().stream().filter(s -> s.endsWith(suffix))
                .map(s -> s.substring(0, s.length() - suffix.length())).collect(Collectors.toCollection(TreeSet::new))
                .stream().toList();
    }

    /** The session's conversation, the requests of this run and the script's next line. */
    SessionView open(String session) {
        String id = checked(session);
        List<Shown> history = store.read(id + "." + Strategy.BUFFER.label(), 0, Integer.MAX_VALUE).stream()
                .map(Entry::message).filter(m -> !(m instanceof SystemMessage)).map(ChatService::shown).toList();
        int turns = (int) history.stream().filter(m -> m.role().equals("user")).count();
        Map<String, String> summaries = new LinkedHashMap<>();
        for (Strategy strategy : STRATEGIES) {
            store.state(SessionIds.of(memoryId(id, strategy))).summary()
                    .ifPresent(summary -> summaries.put(strategy.label(), summary.text()));
        }
        return new SessionView(id, history, requests(id), summaries, script.nextScriptedLine(turns));
    }

    /** The memory id of a strategy's memory of a session. */
    private static String memoryId(String session, Strategy strategy) {
        return session + "." + strategy.label();
    }

    /** This run's requests of the session (the server's own record), oldest first. */
    List<Exchange> requests(String session) {
        return List.copyOf(exchanges.getOrDefault(checked(session), List.of()));
    }

    /**
     * One turn: every strategy's request is computed, the live one is sent to the model, and the
     * question and answer are added to every strategy's memory.
     *
     * @throws IllegalArgumentException for a bad session name or a blank message
     */
    synchronized Exchange chat(String session, Strategy live, String text) {
        String id = checked(session);
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("message must not be blank");
        }
        UserMessage user = UserMessage.from(text.strip());
        Map<Strategy, ChatMemory> memories = new LinkedHashMap<>();
        Map<Strategy, List<ChatMessage>> requests = new LinkedHashMap<>();
        for (Strategy strategy : STRATEGIES) {
            ChatMemory memory = strategy.create(memoryId(id, strategy), store, LIMITS, tokenizer, summarizer,
                    TokenAccounting.create());
            memory.add(Replay.SYSTEM);
            List<ChatMessage> view = memory.messages();
            List<ChatMessage> request = new ArrayList<>(view);
            request.add(augmentations.get(strategy).augment(memory.id(), view, user));
            memories.put(strategy, memory);
            requests.put(strategy, List.copyOf(request));
        }
        AiMessage answer = model.chat(ChatRequest.builder().messages(requests.get(live)).build()).aiMessage();
        Map<String, StrategyRequest> shown = new LinkedHashMap<>();
        memories.forEach((strategy, memory) -> {
            memory.add(user);
            memory.add(answer);
            List<ChatMessage> request = requests.get(strategy);
            shown.put(strategy.label(), new StrategyRequest(strategy.label(),
                    request.stream().map(ChatService::shown).toList(), tokenizer.estimateTokenCountInMessages(request),
                    summaryOf(memory).orElse(null)));
        });
        List<Exchange> list = exchanges.computeIfAbsent(id, k -> new ArrayList<>());
        Exchange exchange = new Exchange(list.size() + 1, live.label(), user.singleText(), answer.text(), shown);
        list.add(exchange);
        return exchange;
    }

    private static Optional<String> summaryOf(ChatMemory memory) {
        Optional<Summary> summary = memory instanceof SummaryChatMemory s ? s.summary()
                : memory instanceof SummaryBufferChatMemory b ? b.summary() : Optional.empty();
        return summary.map(Summary::text);
    }

    private static String checked(String session) {
        if (session == null || !SESSION.matcher(session).matches()) {
            throw new IllegalArgumentException("session must be 1-64 letters, digits, '_' or '-', was " + session);
        }
        return session;
    }

    static Shown shown(ChatMessage message) {
        if (message instanceof SummaryMessage summary) {
            return new Shown("summary", summary.text());
        }
        if (message instanceof SystemMessage system) {
            return new Shown("system", system.text());
        }
        if (message instanceof UserMessage user) {
            return new Shown("user", user.contents().stream().filter(TextContent.class::isInstance)
                    .map(c -> ((TextContent) c).text()).collect(Collectors.joining("\n")));
        }
        if (message instanceof AiMessage ai) {
            String text = ai.text() == null ? "" : ai.text();
            if (ai.hasToolExecutionRequests()) {
                text += ai.toolExecutionRequests().stream().map(r -> "[tool " + r.name() + " " + r.arguments() + "]")
                        .collect(Collectors.joining(" ", text.isEmpty() ? "" : " ", ""));
            }
            return new Shown("assistant", text);
        }
        if (message instanceof ToolExecutionResultMessage tool) {
            return new Shown("tool", tool.toolName() + ": " + tool.text());
        }
        return new Shown(message.type().name().toLowerCase(java.util.Locale.ROOT), message.toString());
    }
}
