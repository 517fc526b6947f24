package io.github.memorypack.samples;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.Conversations;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.replay.Replay;
import io.github.memorypack.replay.Strategy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * An interactive terminal chat on a persistent session: pick a session id and a strategy, talk, quit,
 * start again later and the conversation continues where it stopped (the store keeps the log and
 * the summary; the strategy only decides what the model is sent, so it can differ between runs).
 *
 * <p>Commands: {@code /stats} (tokens in the next request, summary size, stored entries),
 * {@code /summary}, {@code /export <file>} (the whole session; {@code .json} for JSON, else YAML),
 * {@code /sessions}, {@code /help}, {@code /quit}.
 *
 * <p>Options ({@code key=value} arguments or {@code -Dchat.<key>=value}): {@code session} (any text: it
 * is the memory id), {@code strategy} (asked for when missing, and asked again when it is not one of
 * {@link Strategy#labels()}), {@code store=file|memory-md} (default file), {@code dir} (default
 * {@code memorypack.chat.dir}, else {@code target/chat-sessions}), {@code offline=true}. Without
 * {@code OPENAI_API_KEY} an offline responder answers, and every answer says so.
 *
 * <p>What takes a second or more to load (the store's codec, the tokenizer's vocabulary, recall's
 * embedding model) loads on other threads while the prompts wait for the user.
 */
public final class ChatApp {

    /** The system message of every chat. */
    public static final SystemMessage SYSTEM = SystemMessage.from("You are a helpful assistant. Be brief.");
    /** Label in front of every offline answer. */
    public static final String OFFLINE_LABEL = "[offline responder, not a model]";

    private final BufferedReader in;
    private final PrintStream out;
    private final Map<String, String> options;
    private final Map<String, String> environment;

    private ChatApp(InputStream in, PrintStream out, Map<String, String> options, Map<String, String> environment) {
        this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        this.out = out;
        this.options = Map.copyOf(options);
        this.environment = Map.copyOf(environment);
    }

    public static void main(String[] args) {
        Map<String, String> options = new HashMap<>();
        System.getProperties().stringPropertyNames().stream().filter(n -> n.startsWith("chat."))
                .forEach(n -> options.put(n.substring("chat.".length()), System.getProperty(n)));
        options.putAll(parseArgs(args));
        options.putIfAbsent("dir", System.getProperty("memorypack.chat.dir", "target/chat-sessions"));
        try {
            run(System.in, System.out, options, System.getenv());
        } catch (IllegalArgumentException e) { // a bad option on the command line: say which, not a stack trace
            System.err.println("chat: " + e.getMessage());
            System.exit(2);
        }
    }

    /** {@code key=value} (or {@code --key=value}) arguments; a bare word means {@code word=true}. */
    static Map<String, String> parseArgs(String[] args) {
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            String plain = arg.startsWith("--") ? arg.substring(2) : arg;
            int eq = plain.indexOf('=');
            values.put(eq < 0 ? plain : plain.substring(0, eq), eq < 0 ? "true" : plain.substring(eq + 1));
        }
        return values;
    }

    /**
     * Runs one chat until {@code /quit} or the end of {@code in}. A mistyped answer at a prompt (or a
     * mistyped {@code strategy} option) is reported and asked again.
     *
     * @throws IllegalArgumentException for a bad {@code store} option (checked before anything is asked)
     */
    public static void run(InputStream in, PrintStream out, Map<String, String> options, Map<String, String> environment) {
        new ChatApp(in, out, options, environment).chat();
    }

    private void chat() {
        StoreKind kind = StoreKind.of(options.getOrDefault("store", StoreKind.FILE.label()));
        if (!kind.persistent()) {
            throw new IllegalArgumentException("the chat app needs a persistent store: file or memory-md");
        }
        Path dir = Path.of(options.getOrDefault("dir", "target/chat-sessions"));
        Optional<OpenAiSettings> openAi = Boolean.parseBoolean(options.getOrDefault("offline", "false"))
                ? Optional.empty() : OpenAiSettings.from(environment);
        // loaded while the user answers the prompts: each takes about a second on a busy 2-core machine
        CompletableFuture<SessionStore> opening = CompletableFuture.supplyAsync(() -> kind.opener(dir).get());
        CompletableFuture<TokenCountEstimator> loading = CompletableFuture.supplyAsync(
                () -> openAi.map(OpenAiSettings::tokenizer).orElseGet(Tokenizers::o200k));

        out.println("Memory Pack chat — " + openAi.map(OpenAiSettings::describe)
                .orElse("OFFLINE: answers come from a local responder, not a model (set OPENAI_API_KEY for one)"));
        out.println("Sessions are kept in " + dir.toAbsolutePath() + " (" + kind.label() + " store).");
        String memoryId = ask("session", "Session id", "default", text -> text);
        Strategy strategy = ask("strategy", "Strategy (" + Strategy.labels() + ")", Strategy.SUMMARY_BUFFER.label(),
                Strategy::of);
        SessionStore store = joined(opening);
        TokenCountEstimator tokenizer = joined(loading);
        CompletableFuture<Replay.Augmentation> augmenting = CompletableFuture.supplyAsync(
                () -> strategy.augmentation(store, tokenizer)); // recall's model, while the first message is typed
        ChatModel model = openAi.map(OpenAiSettings::chatModel).orElseGet(() -> new OfflineResponder(tokenizer));
        TokenAccounting accounting = TokenAccounting.create();
        ChatMemory memory = strategy.create(memoryId, store, Strategy.Limits.DEFAULT, tokenizer,
                OpenAiSettings.summarizer(openAi, Strategy.Limits.DEFAULT.summaryTokens(), tokenizer), accounting);
        String session = SessionIds.of(memoryId);
        long stored = store.nextIndex(session);
        out.printf(Locale.ROOT, "Session '%s' with %s: %s. Type /help for commands.%n", memoryId,
                strategy.describe(Strategy.Limits.DEFAULT),
                stored == 0 ? "new session" : "continuing, " + stored + " messages stored");
        memory.add(SYSTEM);
        long sent = 0;
        try (Replay.Augmentation augmentation = new Deferred(augmenting)) {
            for (String line = prompt(); line != null; line = prompt()) {
                String text = line.strip();
                if (text.isEmpty()) {
                    continue;
                }
                if (text.startsWith("/")) {
                    if (!command(text, memoryId, strategy, store, memory, tokenizer, sent)) {
                        break;
                    }
                    continue;
                }
                UserMessage user = UserMessage.from(text);
                UserMessage sentUser = augmentation.augment(memory.id(), memory.messages(), user);
                memory.add(user);
                List<ChatMessage> request = new ArrayList<>(memory.messages());
                int newest = request.lastIndexOf(user);
                if (newest >= 0) {
                    request.set(newest, sentUser); // recalled turns go out, the memory keeps your words
                }
                sent += tokenizer.estimateTokenCountInMessages(request);
                ChatResponse response = model.chat(ChatRequest.builder().messages(request).build());
                AiMessage reply = response.aiMessage();
                memory.add(reply);
                out.println("assistant> " + reply.text());
            }
        }
        out.println("Bye. Run again with session=" + memoryId + " to continue.");
    }

    /**
     * The option {@code key} if it was given and {@code parse} takes it, else the answer to {@code question}
     * ({@code fallback} for an empty answer or the end of input), asked again, with the reason, until
     * {@code parse} takes it.
     */
    private <T> T ask(String key, String question, String fallback, Function<String, T> parse) {
        String value = options.get(key);
        if (value != null && !value.isBlank()) {
            try {
                return parse.apply(value.strip());
            } catch (IllegalArgumentException e) {
                out.println(key + "=" + value.strip() + ": " + e.getMessage());
            }
        }
        while (true) {
            out.print(question + " [" + fallback + "]: ");
            out.flush();
            String answer = readLine();
            String text = answer == null || answer.isBlank() ? fallback : answer.strip();
            try {
                return parse.apply(text);
            } catch (IllegalArgumentException e) {
                out.println("  " + e.getMessage() + "; try again");
            }
        }
    }

    private String prompt() {
        out.print("you> ");
        out.flush();
        return readLine();
    }

    private String readLine() {
        try {
            return in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs a command; false when the chat should end. */
    private boolean command(String text, String memoryId, Strategy strategy, SessionStore store, ChatMemory memory,
                            TokenCountEstimator tokenizer, long sent) {
        String session = SessionIds.of(memoryId);
        String[] parts = text.split("\\s+", 2);
        switch (parts[0]) {
            case "/quit", "/exit" -> {
                return false;
            }
            case "/stats" -> {
                SessionState state = store.state(session);
                List<ChatMessage> view = memory.messages();
                out.printf(Locale.ROOT, "strategy: %s%nnext request: %d messages, %d tokens before your next message%n"
                                + "summary: %s%nstored entries: %d%ntokens sent this run: %d%n",
                        strategy.describe(Strategy.Limits.DEFAULT), view.size(),
                        tokenizer.estimateTokenCountInMessages(view),
                        state.summary().map(s -> s.tokenCount() + " tokens, covers the first " + s.coveredUntil()
                                + " entries").orElse("none"),
                        store.nextIndex(session), sent);
            }
            case "/summary" -> out.println(store.state(session).summary().map(s -> s.text())
                    .orElse("(no summary yet" + (strategy.summarizes() ? ")" : ": " + strategy.label()
                            + " does not summarize)")));
            case "/export" -> {
                if (parts.length < 2 || parts[1].isBlank()) {
                    out.println("usage: /export <file>   (.json for JSON, anything else YAML)");
                } else {
                    String name = parts[1].strip();
                    Conversations.Format format = name.toLowerCase(Locale.ROOT).endsWith(".json")
                            ? Conversations.Format.JSON : Conversations.Format.YAML;
                    try {
                        Path file = Path.of(name);
                        Path parent = file.toAbsolutePath().getParent();
                        Files.createDirectories(parent);
                        Files.writeString(file, Conversations.export(store, session, format), StandardCharsets.UTF_8);
                        out.println("exported " + store.nextIndex(session) + " entries to " + file.toAbsolutePath());
                    } catch (IOException | InvalidPathException e) {
                        out.println("cannot export to " + name + ": " + e.getMessage());
                    }
                }
            }
            case "/sessions" -> store.memoryIds().forEach(id -> out.println((id.equals(memoryId) ? "* " : "  ") + id));
            case "/help" -> out.println("/stats  /summary  /export <file>  /sessions  /quit");
            default -> out.println("unknown command " + parts[0] + "; /help lists them");
        }
        return true;
    }

    /** What {@code future} gives, or the exception it failed with (not wrapped). */
    private static <T> T joined(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** An augmentation still being set up (recall loads its model): the first message waits for it. */
    private static final class Deferred implements Replay.Augmentation {

        private final CompletableFuture<Replay.Augmentation> augmentation;

        Deferred(CompletableFuture<Replay.Augmentation> augmentation) {
            this.augmentation = augmentation;
        }

        @Override
        public UserMessage augment(Object memoryId, List<ChatMessage> view, UserMessage user) {
            return joined(augmentation).augment(memoryId, view, user);
        }

        @Override
        public void close() {
            joined(augmentation).close();
        }
    }

    /**
     * Stands in for a model offline: answers with what it was sent — how many messages and tokens,
     * whether a summary is in it, and the earliest user message it still sees — so the effect of a
     * strategy is visible. Every answer starts with {@link #OFFLINE_LABEL}.
     */
    static final class OfflineResponder implements ChatModel {

        private final TokenCountEstimator tokenizer;

        OfflineResponder(TokenCountEstimator tokenizer) {
            this.tokenizer = tokenizer;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            List<String> said = messages.stream().filter(UserMessage.class::isInstance)
                    .map(m -> ((UserMessage) m).singleText()).toList();
            boolean summary = messages.stream().filter(SystemMessage.class::isInstance).count() > 1;
            String last = said.isEmpty() ? "" : said.get(said.size() - 1);
            String earliest = said.isEmpty() ? "" : said.get(0);
            String text = String.format(Locale.ROOT, "%s You said \"%s\". I was sent %d messages (%d tokens)%s; "
                            + "the earliest of your messages I still see: \"%s\".", OFFLINE_LABEL, last, messages.size(),
                    tokenizer.estimateTokenCountInMessages(messages), summary ? ", including a summary" : "", earliest);
            return ChatResponse.builder().aiMessage(AiMessage.from(text)).build();
        }
    }
}
