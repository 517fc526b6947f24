package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.lang.ref.Cleaner;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session-keyed, append-only message log plus a small versioned state record per session.
 * Every Memory Pack memory is a view computed from a store; the store is the truth.
 *
 * <h2>Rules every implementation keeps (checked by {@code memory-pack-testkit}'s contract)</h2>
 * <ul>
 *   <li>Session ids are validated with {@link SessionIds} before any I/O; a bad id throws
 *       {@link IllegalArgumentException} and touches nothing.</li>
 *   <li>{@link #append} is atomic (all of its entries become visible together, or none) and costs
 *       I/O in proportion to the new entries only. Entries get consecutive indices; concurrent
 *       appenders, in this process or others, never lose or interleave each other's batches.</li>
 *   <li>An append with an idempotency key that the session has already stored stores nothing and
 *       returns the entries stored the first time.</li>
 *   <li>Indices are never reused: after {@link #trim} or {@link #replace} new entries continue
 *       from {@link #nextIndex}.</li>
 *   <li>State updates are compare-and-set on {@link SessionState#version()}; appends never conflict
 *       with state updates.</li>
 *   <li>An unknown session reads as empty (no entries, {@link SessionState#EMPTY}); sessions are
 *       isolated; every LangChain4j message type round-trips exactly.</li>
 *   <li>Failures throw {@link StoreException} (or a subclass); a failed append is not visible.</li>
 * </ul>
 *
 * <p>A store is also a LangChain4j {@link ChatMemoryStore}, so LangChain4j's own memories can use
 * it: {@link #updateMessages} appends when it is handed "the stored messages plus new ones", and
 * replaces the log otherwise.
 */
public interface SessionStore extends ChatMemoryStore {

    /** Longest accepted idempotency key, in characters. */
    int MAX_IDEMPOTENCY_KEY_LENGTH = 256;

    /**
     * Atomically appends entries to the end of a session's log.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param entries the entries to append, oldest first; may be empty
     * @param idempotencyKey {@code null}, or a key (for example a request id) that makes the append
     *                       happen at most once per session: when the session already holds entries
     *                       appended under this key, nothing is stored and those entries are returned
     * @return the stored entries, with their indices, ids and timestamps
     * @throws IllegalArgumentException if the id is not valid (nothing is touched)
     * @throws IllegalArgumentException  if the key is blank or longer than {@link #MAX_IDEMPOTENCY_KEY_LENGTH}
     * @throws StoreException            if the append failed; then none of it is visible
     */
    List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey);

    /**
     * {@link #append(String, List, String)} without an idempotency key.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param entries the entries to append, oldest first; may be empty
     * @return the stored entries, with their indices, ids and timestamps
     */
    default List<Entry> append(String sessionId, List<NewEntry> entries) {
        return append(sessionId, entries, null);
    }

    /**
     * Reads up to {@code maxCount} entries with {@code index >= fromIndex}, oldest first. Entries
     * removed by {@link #trim} are skipped.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param fromIndex the first index to read
     * @param maxCount the most entries to return, at least 0
     * @return the entries, oldest first; empty for an unknown session
     */
    List<Entry> read(String sessionId, long fromIndex, int maxCount);

    /**
     * Reads the last {@code count} retained entries (fewer if the log is shorter), oldest first.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param count how many of the newest entries to read (at least 0)
     * @return the entries, oldest first; empty for an unknown session
     */
    List<Entry> readLast(String sessionId, int count);

    /**
     * The index the next appended entry will get: 0 for an unknown session.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @return the index the next appended entry will get: 0 for an unknown session
     */
    long nextIndex(String sessionId);

    /**
     * The session's state; {@link SessionState#EMPTY} for an unknown session.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @return the session's state; {@link SessionState#EMPTY} for an unknown session
     */
    SessionState state(String sessionId);

    /**
     * Stores {@code newState} if the current state's version is {@code expectedVersion}.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param expectedVersion the version the current state must have
     * @param newState the state to store; its version is ignored (the store assigns the next one)
     * @return the stored state (its version is {@code expectedVersion + 1}), or empty if another
     *         writer got there first
     */
    Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState);

    /**
     * Atomically replaces every entry of the session's log with {@code entries} (indices continue
     * from {@link #nextIndex}; idempotency keys of removed entries are forgotten). The state is left
     * as it is.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param entries the new entries, oldest first; may be empty
     */
    void replace(String sessionId, List<NewEntry> entries);

    /**
     * Removes the entries with {@code index < beforeIndex}; later indices are unchanged.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     * @param beforeIndex entries with a smaller index are removed
     */
    void trim(String sessionId, long beforeIndex);

    /**
     * The ids of all sessions that have entries or state, sorted.
     *
     * @return the ids of all sessions that have entries or state, sorted
     */
    List<String> sessions();

    /**
     * The memory ids of all sessions, as the application gave them to its memories (or to
     * {@link #updateMessages}): for each of {@link #sessions()}, {@link SessionIds#memoryId}. A memory id
     * comes back as its text ({@code String.valueOf}: {@code 42L} as {@code "42"}, which is the same
     * conversation), so {@code alice@example.com} is listed as {@code alice@example.com}, not as its session
     * id {@code ~YWxp…}. A memory id too long to encode comes back from the session's state, where every
     * memory keeps it; a session written by session id alone ({@link #append}) whose memory id nobody
     * recorded is listed by its session id.
     *
     * <p>Reads the state of those hashed sessions only; otherwise costs what {@link #sessions()} costs.
     *
     * @return the memory ids' texts, sorted
     * @throws StoreException if the store cannot be read
     */
    default List<String> memoryIds() {
        List<String> memoryIds = new ArrayList<>();
        for (String sessionId : sessions()) {
            memoryIds.add(SessionIds.memoryId(this, sessionId));
        }
        Collections.sort(memoryIds);
        return Collections.unmodifiableList(memoryIds);
    }

    /**
     * Deletes a session's log, state and idempotency keys. Deleting an unknown session does nothing.
     *
     * @param sessionId the session id (see {@link SessionIds}); checked before any I/O
     */
    void delete(String sessionId);

    /**
     * A folder this store offers for data of one kind derived from its sessions — a search index, a
     * cache: data that can be rebuilt from the logs at any time and never holds the only copy of
     * anything (recall keeps its persistent indexes there). Empty, the default, when the store offers
     * none (it keeps nothing on the local file system); a caller then keeps such data elsewhere or in
     * memory.
     *
     * <p>A store that offers one gives each kind its own folder, which none of its sessions' files
     * ever uses and whose content {@link #sessions()} never lists, at the same place for every store
     * instance over the same data, so derived data survives a restart. The folder need not exist yet:
     * the caller creates it, and may delete it at any time. Deleting a session leaves it alone.
     *
     * @param kind what the data is: 1 to 64 of {@code [a-z0-9-]}, for example {@code "recall-index"}
     * @return the folder for that kind of data, or empty when the store offers none
     * @throws IllegalArgumentException if {@code kind} is null or not such a name (checked before any I/O,
     *                                  by every store)
     */
    default Optional<Path> derivedDataDirectory(String kind) {
        if (kind == null || kind.isEmpty() || kind.length() > 64 || !kind.chars().allMatch(
                c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
            throw new IllegalArgumentException("a derived data kind is 1 to 64 of [a-z0-9-], was "
                    + (kind == null ? "null" : "'" + kind + "'"));
        }
        return Optional.empty();
    }

    /**
     * An id for the process this store instance runs in, which the memories put on each turn they
     * start, so that another process can tell whether that turn's process has ended
     * ({@link #processEnded}): a turn left open by a process that crashed then stops holding up the
     * session's next request at once, instead of after the open-turn timeout. Null, the default, when
     * the store cannot tell; such turns end by the timeout only.
     *
     * <p>A store that returns an id returns the same one on every call for the life of the process (or
     * of the store instance), never one an earlier process had, and may create what marks it as alive
     * on the first call.
     *
     * @return this process's id among the processes that use the same data, or null
     */
    @Experimental
    default String processId() {
        return null;
    }

    /**
     * True only if the process that had {@code processId} (another process's {@link #processId}, as
     * found on a turn in the log) is known to have ended; false while it runs, and whenever the store
     * cannot tell. Never true for this process's own id. A process once ended stays ended.
     *
     * @param processId an id from {@link #processId} of this or another process, not null
     * @return true if that process has ended for certain
     */
    @Experimental
    default boolean processEnded(String processId) {
        return false;
    }

    /**
     * The session's conversation as LangChain4j expects a {@code ChatMemoryStore} to hold it, oldest
     * first: the system message as of now first (when there is one), then every message of the
     * current conversation — what follows the latest {@code clear()}, without the messages a
     * {@code set()} replaced, without earlier attempts of a retried request, and without the memories'
     * own bookkeeping records. So LangChain4j's own memories on this store, and an application that
     * shows history from it, see what the memories see (summary-covered and evicted messages
     * included: eviction never deletes). The raw log, records and superseded entries included, is
     * {@link #read}.
     */
    @Override
    default List<ChatMessage> getMessages(Object memoryId) {
        String sessionId = SessionIds.of(memoryId);
        return Dialogue.conversation(state(sessionId), read(sessionId, 0, Integer.MAX_VALUE));
    }

    /**
     * LangChain4j's "replace all messages", done without rewriting history: when {@code messages}
     * starts with exactly the conversation {@link #getMessages} returns, only the new suffix is
     * appended; anything else replaces the log (see {@link #replace}; when the list has no system
     * message and the state holds one, a record after the new messages says there is none).
     *
     * @throws IllegalArgumentException if {@code messages} is null or holds null (before any I/O)
     */
    @Override
    default void updateMessages(Object memoryId, List<ChatMessage> messages) {
        String sessionId = SessionIds.of(memoryId);
        Checks.messages(messages, false);
        SessionState state = state(sessionId);
        List<ChatMessage> stored = Dialogue.conversation(state, read(sessionId, 0, Integer.MAX_VALUE));
        boolean extendsStored = messages.size() >= stored.size()
                && messages.subList(0, stored.size()).equals(stored);
        List<NewEntry> entries = new ArrayList<>();
        for (ChatMessage message : extendsStored ? messages.subList(stored.size(), messages.size()) : messages) {
            entries.add(NewEntry.of(message));
        }
        if (extendsStored) {
            if (!entries.isEmpty()) {
                append(sessionId, entries);
            }
        } else {
            // the state outlives a replace: when it holds a system message the list lacks, a record removes it
            boolean hasSystem = messages.stream().anyMatch(m -> m instanceof dev.langchain4j.data.message.SystemMessage);
            if (!hasSystem && state.systemMessage().isPresent()) {
                entries.add(NewEntry.of(Records.noSystem(), 0));
            }
            replace(sessionId, entries);
        }
        if (SessionIds.isHashed(sessionId) && !entries.isEmpty()) {
            SessionIds.remember(this, sessionId, memoryId);
        }
    }

    /** Same as {@link #delete(String)}. */
    @Override
    default void deleteMessages(Object memoryId) {
        delete(SessionIds.of(memoryId));
    }

    /**
     * For store implementations on a shared server (Redis, a database): {@link #processId} and
     * {@link #processEnded} by a lease. The store's instance takes a random id on the first {@link #id()}
     * and {@linkplain #create creates} its lease, which lives for the time to live unless
     * {@linkplain #renew renewed}; one daemon thread renews it every quarter of that time until {@link #close}
     * (or until the owner given to the constructor is collected). A process whose lease is
     * {@linkplain #lapsed gone} has ended and stays ended: a lapsed lease is never renewed again, and when the
     * renewal finds its own lease lapsed (the process paused, or the server was out of reach, for longer than
     * the time to live: other processes may already have judged its turns abandoned) a new id is taken for
     * the turns started from then on, with a warning. {@link #ended} remembers the last 1,024 ids it found
     * ended. A backend call that fails (throws) means "cannot tell": {@link #id()} is then null for a while
     * (turns end by the open-turn timeout only) and {@link #ended} false.
     *
     * <p>Subclasses must not hold the store itself, or the store is never collected while the thread runs.
     * Thread-safe.
     */
    @Experimental
    abstract class ProcessLease {

        private static final Logger LOG = LoggerFactory.getLogger(ProcessLease.class);
        private static final SecureRandom RANDOM = new SecureRandom();
        private static final Cleaner CLEANER = Cleaner.create();
        private static final int ENDED_KEPT = 1024;

        private final long ttlNanos;
        private final long renewNanos;
        private final Object lock = new Object();
        private final Map<String, Boolean> ended = Collections.synchronizedMap(
                new LinkedHashMap<String, Boolean>(16, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                        return size() > ENDED_KEPT;
                    }
                });
        /** The id turns are tagged with now; null before the first call, after close, or when none could be made. */
        private volatile String current;
        /** {@link System#nanoTime} when the last create or renewal that found the lease held was sent. */
        private volatile long confirmedNanos;
        /** {@link System#nanoTime} of the last attempt made on a caller's thread. */
        private long attemptedNanos;
        private boolean attempted;
        private boolean closed;
        private boolean warned;
        private ScheduledThreadPoolExecutor renewer;

        /**
         * A lease that stops renewing when {@code owner} (the store) is collected.
         *
         * @param owner the store whose collection stops the renewing thread
         * @param timeToLive how long a lease lives without a renewal, positive
         */
        protected ProcessLease(Object owner, Duration timeToLive) {
            if (timeToLive == null || timeToLive.isNegative() || timeToLive.isZero()) {
                throw new IllegalArgumentException("timeToLive must be positive, was " + timeToLive);
            }
            this.ttlNanos = timeToLive.toNanos();
            this.renewNanos = ttlNanos / 4;
            CLEANER.register(Objects.requireNonNull(owner, "owner"), this::close);
        }

        /**
         * Creates the lease of the new id {@code id}, to live for the time to live.
         *
         * @param id a new random id
         * @param quick true on a caller's thread: one attempt, no retries
         * @return true if created; false if {@code id} is taken (another id is tried)
         * @throws RuntimeException if the server cannot be reached
         */
        protected abstract boolean create(String id, boolean quick);

        /**
         * Renews the lease of {@code id} for the time to live, only if it is still held.
         *
         * @param id this process's id
         * @param quick true on a caller's thread: one attempt, no retries
         * @return true if renewed; false if it had lapsed (it must not be created again)
         * @throws RuntimeException if the server cannot be reached
         */
        protected abstract boolean renew(String id, boolean quick);

        /**
         * True if the lease of another process's {@code id} is gone for good (lapsed or removed).
         *
         * @param id another process's id
         * @return true if it is gone
         * @throws RuntimeException if the server cannot be reached
         */
        protected abstract boolean lapsed(String id);

        /**
         * Where the leases are, for log messages.
         *
         * @param id an id, or null for the leases in general
         * @return for example {@code "Redis key app:process:<id>"}
         */
        protected abstract String where(String id);

        /**
         * What the user may do when the first lease cannot be created (appended to the warning).
         *
         * @return a hint, or the empty string
         */
        protected String createHint() {
            return "";
        }

        /**
         * This store instance's id, its lease created on the first call ({@link SessionStore#processId}).
         *
         * @return the id, or null when no lease could be created or after {@link #close}
         */
        public final String id() {
            String id = current;
            if (id != null && System.nanoTime() - confirmedNanos < ttlNanos / 2) {
                return id;
            }
            synchronized (lock) {
                if (closed) {
                    return null;
                }
                long now = System.nanoTime();
                if (attempted && now - attemptedNanos < renewNanos) {
                    return current; // tried a moment ago (the server out of reach): what we have, or none
                }
                id = current;
                if (id != null && now - confirmedNanos < ttlNanos / 2) {
                    return id;
                }
                attempted = true;
                attemptedNanos = now;
                if (id != null) {
                    // not confirmed for half the time to live (the renewer paused, or fails): make sure before a turn uses it
                    renewOrReplace(id, true);
                    return current;
                }
                current = createNew(false);
                if (current != null && renewer == null) {
                    startRenewer();
                }
                return current;
            }
        }

        /**
         * True only if the process that had {@code id} is known to have ended ({@link SessionStore#processEnded}):
         * its lease is gone. False for this instance's own id, for an id no lease has, and when the server
         * cannot be asked.
         *
         * @param id another process's id
         * @return true if that process has ended for certain
         */
        public final boolean ended(String id) {
            if (!isId(id) || id.equals(current)) {
                return false;
            }
            if (ended.containsKey(id)) {
                return true;
            }
            boolean gone;
            try {
                gone = lapsed(id);
            } catch (RuntimeException e) {
                LOG.debug("could not tell whether process {} has ended: {}", id, e.toString());
                return false;
            }
            if (gone) {
                ended.put(id, Boolean.TRUE);
            }
            return gone;
        }

        /** Stops renewing; the lease lapses within the time to live, and {@link #id()} is null from now on. */
        public final void close() {
            synchronized (lock) {
                closed = true;
                current = null;
                if (renewer != null) {
                    renewer.shutdownNow();
                    renewer = null;
                }
            }
        }

        /**
         * True if {@code id} is one a lease names: 16 lower-case hex digits (anything else in a log is no id of ours).
         *
         * @param id a string, or null
         * @return true if it has an id's form
         */
        public static boolean isId(String id) {
            if (id == null || id.length() != 16) {
                return false;
            }
            for (int i = 0; i < id.length(); i++) {
                char c = id.charAt(i);
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                    return false;
                }
            }
            return true;
        }

        private void startRenewer() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "memory-pack-process-lease");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            executor.scheduleWithFixedDelay(this::tick, renewNanos, renewNanos, TimeUnit.NANOSECONDS);
            renewer = executor;
        }

        private void tick() {
            String id = current;
            if (id != null) {
                renewOrReplace(id, false);
            } else {
                synchronized (lock) {
                    if (!closed && current == null) {
                        current = createNew(false); // the last replacement could not make a new id
                    }
                }
            }
        }

        /** Renews {@code id}'s lease if it is still held; if it lapsed, takes a new id. */
        private void renewOrReplace(String id, boolean quick) {
            long sent = System.nanoTime();
            boolean held;
            try {
                held = renew(id, quick);
            } catch (RuntimeException e) {
                LOG.debug("could not renew the lease of {}: {}", where(id), e.toString());
                return; // tried again at the next tick; if that is after the time to live, the lease lapsed and is replaced
            }
            synchronized (lock) {
                if (closed || !id.equals(current)) {
                    return;
                }
                if (held) {
                    if (sent - confirmedNanos > 0) {
                        confirmedNanos = sent;
                    }
                    return;
                }
                ended.put(id, Boolean.TRUE);
                current = null;
                current = createNew(quick);
                LOG.warn("the lease of {} lapsed before it was renewed (this process paused, or could not reach the"
                        + " server, for longer than {} ms): other processes may treat the open turns started under"
                        + " it as abandoned; later turns use {}", where(id),
                        TimeUnit.NANOSECONDS.toMillis(ttlNanos),
                        current == null ? "no id until one can be made" : "the new id " + current);
            }
        }

        /** Creates the lease of a new random id; null when the server cannot be reached. Called under the lock. */
        private String createNew(boolean quick) {
            for (int attempt = 0; attempt < 3; attempt++) {
                byte[] random = new byte[8];
                RANDOM.nextBytes(random);
                String id = HexFormat.of().formatHex(random);
                long sent = System.nanoTime();
                try {
                    if (create(id, quick)) {
                        confirmedNanos = sent;
                        return id;
                    }
                    // taken (or our own first attempt's reply was lost): another id
                } catch (RuntimeException e) {
                    if (!warned) {
                        warned = true; // once per store: an outage may last, and every turn would say it again
                        LOG.warn("could not create a process lease ({}), tried again later: until then the turns this"
                                + " store starts end by the open-turn timeout only if its process dies{}: {}",
                                where(null), createHint(), e.getMessage());
                    } else {
                        LOG.debug("no process lease ({}): {}", where(null), e.toString());
                    }
                    return null;
                }
            }
            return null;
        }
    }
}
