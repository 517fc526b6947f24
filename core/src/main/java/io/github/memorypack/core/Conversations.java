package io.github.memorypack.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Conversation utilities that work on any {@link SessionStore} (the swarms {@code Conversation}
 * helpers: export, import, search, counts by role, history as text, plus forking).
 *
 * <p>Rules:
 * <ul>
 *   <li>Everything reads the session's full retained log, not a memory's view: a search finds what a
 *       window no longer shows. Search, counts and history as text skip the memories' bookkeeping
 *       records (clear, set and end records are no messages); export keeps them.</li>
 *   <li>Export/import documents hold the messages (LangChain4j's own JSON), token counts, metadata,
 *       original indices, ids and timestamps, and the state (system message, summary, attributes).
 *       On import the target store assigns new indices, ids and timestamps; a summary's covered range
 *       is moved to the new indices.</li>
 *   <li>Import and fork never touch an existing session unless told to: import needs
 *       {@link ImportMode#REPLACE_EXISTING}, fork always needs a new session id. The source of a fork
 *       is only read.</li>
 * </ul>
 *
 * <p>Stateless: each method is as thread-safe as the store it is given. Fork, and import without
 * {@link ImportMode#REPLACE_EXISTING}, check that the target session does not exist before they
 * write it; that check is not atomic against another writer creating the same session at the same
 * moment.
 */
public final class Conversations {

    /** The {@code format} field of export documents. */
    public static final String FORMAT = "memory-pack-session";
    /** The {@code version} field of export documents this class writes and reads. */
    public static final int VERSION = 1;

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The optional dependency {@link Format#YAML} needs (core declares it {@code <optional>}). */
    static final String YAML_ARTIFACT = "com.fasterxml.jackson.dataformat:jackson-dataformat-yaml";
    private static final String YAML_MAPPER = "com.fasterxml.jackson.dataformat.yaml.YAMLMapper";
    private static final int STATE_RETRIES = 10;

    private Conversations() {
    }

    /** Text formats a session can be exported to and imported from. */
    public enum Format {
        /** Pretty-printed JSON. */
        JSON,
        /**
         * YAML (the same document as {@link #JSON}). Needs {@code com.fasterxml.jackson.dataformat:jackson-dataformat-yaml}
         * on the class path, an optional dependency of {@code memory-pack-core} (add it, at the version
         * LangChain4j's Jackson uses); without it, export and import in YAML throw a
         * {@link MemoryPackException} that names it, before reading or writing anything.
         */
        YAML
    }

    /** What {@link #importSession} does when the target session already exists. */
    public enum ImportMode {
        /** Import only into a session that has no entries and no state; otherwise throw {@link IllegalStateException}. */
        NEW_SESSION_ONLY,
        /** Explicit confirmation: replace the target's log and state with the imported ones. */
        REPLACE_EXISTING
    }

    /**
     * How many messages of one role a session holds and their tokens.
     *
     * @param messages                  messages of the role
     * @param tokens                    the token counts stored with them (or estimated, when an estimator was
     *                                  given)
     * @param messagesWithoutTokenCount how many had no count to add
     */
    public record RoleCount(long messages, long tokens, long messagesWithoutTokenCount) {

        RoleCount plus(long tokenCount) {
            return tokenCount < 0 ? new RoleCount(messages + 1, tokens, messagesWithoutTokenCount + 1)
                    : new RoleCount(messages + 1, tokens + tokenCount, messagesWithoutTokenCount);
        }
    }

    /**
     * The entries of the session's current conversation, oldest first, as every Memory Pack memory
     * reads its log: what follows the latest {@code clear()}, without the messages a {@code set()}
     * replaced, without earlier attempts of a retried request, and without the memories' own records.
     * The rest stays in the log (exported, searched and counted by the other methods here), but is
     * no part of the conversation any more. System-message entries are included (they record the
     * application's system message as it changed).
     *
     * @param store the store
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @return the current conversation's entries, oldest first
     */
    public static List<Entry> current(SessionStore store, String sessionId) {
        SessionIds.validate(sessionId);
        SessionState state = store.state(sessionId);
        List<Entry> entries = store.read(sessionId, 0, Integer.MAX_VALUE);
        return Dialogue.live(state, entries);
    }

    /**
     * The session's full retained log and state as a JSON or YAML document.
     *
     * @param store the store
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param format JSON or YAML
     * @return the session's full retained log and state as a JSON or YAML document
     * @throws MemoryPackException if {@code format} is YAML and {@code jackson-dataformat-yaml} is not on the
     *                             class path (see {@link Format#YAML}; nothing is read)
     */
    public static String export(SessionStore store, String sessionId, Format format) {
        Objects.requireNonNull(format, "format");
        ObjectMapper mapper = mapper(format);
        List<Entry> entries = all(store, sessionId);
        SessionState state = store.state(sessionId);
        try {
            ObjectNode doc = JSON.createObjectNode();
            doc.put("format", FORMAT).put("version", VERSION).put("sessionId", sessionId)
                    .put("nextIndex", store.nextIndex(sessionId));
            doc.set("state", JSON.readTree(EntryCodec.encodeState(state)));
            ArrayNode list = doc.putArray("entries");
            for (Entry e : entries) {
                list.add(JSON.readTree(EntryCodec.encodeEntry(e)));
            }
            return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Imports a document written by {@link #export} into {@code targetSessionId}.
     *
     * @param store the store
     * @param targetSessionId the session to write to
     * @param document a JSON or YAML document written by {@link #export}
     * @param format the document's format
     * @param mode what to do when the target session exists
     * @return the entries stored in the target
     * @throws IllegalArgumentException if the document is not a valid export
     * @throws IllegalStateException    if the target exists and the mode is {@link ImportMode#NEW_SESSION_ONLY}
     * @throws MemoryPackException      if {@code format} is YAML and {@code jackson-dataformat-yaml} is not on
     *                                  the class path (see {@link Format#YAML}; nothing is read or written)
     */
    public static List<Entry> importSession(SessionStore store, String targetSessionId, String document,
                                            Format format, ImportMode mode) {
        SessionIds.validate(targetSessionId);
        Objects.requireNonNull(document, "document");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(mode, "mode");
        List<Entry> entries = new ArrayList<>();
        SessionState state;
        try {
            JsonNode doc = mapper(format).readTree(document);
            if (doc == null || !FORMAT.equals(doc.path("format").asText()) || doc.path("version").asInt() != VERSION) {
                throw new IllegalArgumentException("not a " + FORMAT + " version " + VERSION + " document");
            }
            for (JsonNode node : doc.path("entries")) {
                entries.add(EntryCodec.decodeEntry(JSON.writeValueAsString(node)));
            }
            state = doc.hasNonNull("state") ? EntryCodec.decodeState(JSON.writeValueAsString(doc.get("state")))
                    : SessionState.EMPTY;
        } catch (IOException e) {
            throw new IllegalArgumentException("document does not parse as " + format + ": " + e.getMessage(), e);
        }
        boolean exists = exists(store, targetSessionId);
        if (exists && mode == ImportMode.NEW_SESSION_ONLY) {
            throw new IllegalStateException("session '" + targetSessionId
                    + "' already exists; import with ImportMode.REPLACE_EXISTING to replace it");
        }
        return copy(store, targetSessionId, entries, state, exists);
    }

    /**
     * Copies the first {@code turns} turns of {@code sourceSessionId} (everything before its
     * {@code turns + 1}-th user message) into the new session {@code targetSessionId}. The source is
     * not changed. The system message and attributes are copied; the summary only if it covers
     * nothing after the fork point.
     *
     * @param store the store
     * @param sourceSessionId the session to copy from
     * @param turns how many turns to copy (at least 0)
     * @param targetSessionId the session to write to
     * @return the entries stored in the target
     * @throws IllegalArgumentException if {@code turns} is negative
     * @throws IllegalStateException    if the target session exists
     */
    public static List<Entry> forkAtTurn(SessionStore store, String sourceSessionId, int turns, String targetSessionId) {
        if (turns < 0) {
            throw new IllegalArgumentException("turns must be >= 0, was " + turns);
        }
        List<Entry> source = all(store, sourceSessionId);
        long cut = store.nextIndex(sourceSessionId);
        int seen = 0;
        for (Entry e : source) {
            if (e.message() instanceof UserMessage && seen++ == turns) {
                cut = e.index();
                break;
            }
        }
        return forkAtIndex(store, sourceSessionId, cut, targetSessionId);
    }

    /**
     * Copies the entries of {@code sourceSessionId} with {@code index < beforeIndex} into the new
     * session {@code targetSessionId}; see {@link #forkAtTurn}.
     *
     * @param store the store
     * @param sourceSessionId the session to copy from
     * @param beforeIndex entries with a smaller index are copied
     * @param targetSessionId the session to write to
     * @return the entries stored in the target
     */
    public static List<Entry> forkAtIndex(SessionStore store, String sourceSessionId, long beforeIndex,
                                          String targetSessionId) {
        SessionIds.validate(targetSessionId);
        if (sourceSessionId.equals(targetSessionId)) {
            throw new IllegalArgumentException("a fork needs a new session id");
        }
        if (exists(store, targetSessionId)) {
            throw new IllegalStateException("session '" + targetSessionId + "' already exists; fork into a new id");
        }
        List<Entry> kept = new ArrayList<>();
        for (Entry e : all(store, sourceSessionId)) {
            if (e.index() < beforeIndex) {
                kept.add(e);
            }
        }
        SessionState state = store.state(sourceSessionId);
        if (state.summary().isPresent() && state.summary().get().coveredUntil() > beforeIndex) {
            state = state.withSummary(null);
        }
        return copy(store, targetSessionId, kept, state, false);
    }

    /**
     * Messages of the full retained log (not the memories' bookkeeping records) whose readable text
     * (every text part, tool calls and results, custom attributes) contains
     * {@code keyword}, ignoring case, oldest first.
     *
     * @param store the store
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param keyword the text to look for
     * @return the matching entries, oldest first; empty when none
     */
    public static List<Entry> search(SessionStore store, String sessionId, String keyword) {
        Objects.requireNonNull(keyword, "keyword");
        if (keyword.isEmpty()) {
            throw new IllegalArgumentException("keyword must not be empty");
        }
        String needle = keyword.toLowerCase(Locale.ROOT);
        List<Entry> found = new ArrayList<>();
        for (Entry e : messages(store, sessionId)) {
            if (ConversationText.text(e.message()).toLowerCase(Locale.ROOT).contains(needle)) {
                found.add(e);
            }
        }
        return found;
    }

    /**
     * Messages of the full retained log (not the memories' bookkeeping records) and their stored token
     * counts by role; entries without a count are counted as such.
     *
     * @param store the store
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @return per role present in the log, its messages, tokens and messages without a count
     */
    public static Map<ChatMessageType, RoleCount> countByRole(SessionStore store, String sessionId) {
        return countByRole(store, sessionId, null);
    }

    /**
     * Messages and tokens by role; an entry without a stored token count is estimated with
     * {@code estimator} (when not null).
     *
     * @param store the store
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param estimator counts the entries stored without a token count; {@code null} to count them as such
     * @return per role present in the log, its messages, tokens and messages without a count
     */
    public static Map<ChatMessageType, RoleCount> countByRole(SessionStore store, String sessionId,
                                                              TokenCountEstimator estimator) {
        Map<ChatMessageType, RoleCount> counts = new EnumMap<>(ChatMessageType.class);
        for (Entry e : messages(store, sessionId)) {
            long tokens = e.hasTokenCount() ? e.tokenCount()
                    : estimator == null ? -1 : estimator.estimateTokenCountInMessage(e.message());
            counts.merge(e.message().type(), new RoleCount(0, 0, 0).plus(tokens),
                    (a, b) -> new RoleCount(a.messages() + b.messages(), a.tokens() + b.tokens(),
                            a.messagesWithoutTokenCount() + b.messagesWithoutTokenCount()));
        }
        return counts;
    }

    /**
     * One entry as {@code [timestamp] Role: content} on exactly one line (the form of
     * {@link #historyAsText}): in the content a backslash is written {@code \\}, a line feed
     * {@code \n}, a carriage return {@code \r}, and the other line breaks as a backslash, {@code u}
     * and four hex digits, so no message text can start a line of its own (a user message cannot forge
     * a {@code [timestamp] System:} line).
     *
     * @param entry the entry
     * @return the line, without a line break at the end
     * @throws IllegalArgumentException if {@code entry} is null
     */
    public static String line(Entry entry) {
        if (entry == null) {
            throw new IllegalArgumentException("entry must not be null");
        }
        return ConversationText.line(entry);
    }

    /**
     * The full retained log as {@code [timestamp] Role: content} lines, without the memories'
     * bookkeeping records (they are no messages).
     *
     * @param store the store
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @return the full retained log's messages as {@code [timestamp] Role: content} lines
     */
    public static String historyAsText(SessionStore store, String sessionId) {
        return ConversationText.history(messages(store, sessionId));
    }

    /** The full retained log without the memories' bookkeeping records (clear, set, end…), which are no messages. */
    private static List<Entry> messages(SessionStore store, String sessionId) {
        List<Entry> all = all(store, sessionId);
        List<Entry> messages = new ArrayList<>(all.size());
        for (Entry e : all) {
            if (Records.kind(e.message()) == null) {
                messages.add(e);
            }
        }
        return messages;
    }

    private static List<Entry> all(SessionStore store, String sessionId) {
        return store.read(sessionId, 0, Integer.MAX_VALUE);
    }

    private static boolean exists(SessionStore store, String sessionId) {
        return store.nextIndex(sessionId) > 0 || store.state(sessionId).version() > 0
                || store.sessions().contains(sessionId);
    }

    /**
     * The mapper for {@code format}.
     *
     * @throws MemoryPackException if the format is YAML and its optional dependency is missing
     */
    private static ObjectMapper mapper(Format format) {
        if (format != Format.YAML) {
            return JSON;
        }
        try {
            Class.forName(YAML_MAPPER, false, Conversations.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new MemoryPackException("Conversations.Format.YAML needs " + YAML_ARTIFACT + " on the class path"
                    + " (an optional dependency of memory-pack-core): add it, or use Format.JSON", e);
        }
        return Yaml.MAPPER;
    }

    /** Loaded on first use only, so that everything else here works without the YAML dependency. */
    private static final class Yaml {
        static final ObjectMapper MAPPER = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper();
    }

    /** Writes {@code source} (and {@code state}, its summary range moved to the new indices) into the target. */
    private static List<Entry> copy(SessionStore store, String target, List<Entry> source, SessionState state,
                                    boolean replace) {
        List<NewEntry> batch = new ArrayList<>(source.size());
        for (Entry e : source) {
            batch.add(NewEntry.of(e.message(), e.tokenCount(), e.metadata()));
        }
        List<Entry> stored;
        if (replace) {
            store.replace(target, batch);
            stored = all(store, target);
        } else {
            stored = batch.isEmpty() ? List.of() : store.append(target, batch);
        }
        SessionState moved = state;
        if (state.summary().isPresent()) {
            Summary s = state.summary().get();
            long covered = store.nextIndex(target);
            for (int i = 0; i < source.size(); i++) {
                if (source.get(i).index() >= s.coveredUntil()) {
                    covered = stored.get(i).index();
                    break;
                }
            }
            moved = state.withSummary(new Summary(s.text(), covered, s.tokenCount(), s.createdAt()));
        }
        boolean hasState = moved.systemMessage().isPresent() || moved.summary().isPresent()
                || !moved.attributes().isEmpty();
        if (hasState || replace) {
            for (int attempt = 0; ; attempt++) {
                long version = store.state(target).version();
                if (store.compareAndSetState(target, version, moved).isPresent()) {
                    break;
                }
                if (attempt == STATE_RETRIES) {
                    throw new IllegalStateException("state of '" + target + "' kept changing while importing");
                }
            }
        }
        return stored;
    }
}
