package io.github.memorypack.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract every {@link SessionStore} keeps, as JUnit 5 tests. A backend's test class extends
 * this class and implements {@link #createStore(Clock)}; everything else is optional:
 *
 * <pre>{@code
 * class MyStoreContractTest extends SessionStoreContract {
 *     @Override
 *     protected SessionStore createStore(Clock clock) {
 *         return MyStore.builder().clock(clock).build();
 *     }
 * }
 * }</pre>
 *
 * <h2>Hooks</h2>
 * <ul>
 *   <li>{@link #createStore(Clock)} (required): a new, <em>empty</em> store whose timestamps come
 *       from {@code clock}. Called once per test.</li>
 *   <li>{@link #reopen(SessionStore)}: a persistent store returns a new instance over the same data
 *       (close the old one first if it holds files or connections), so the contract checks that
 *       everything survives a restart. Default: the same instance (nothing to restart). Use
 *       {@link #clock()} to give the new instance the test's clock.</li>
 *   <li>{@link #closeStore(SessionStore)}: releases a store after each test; default closes it if
 *       it is {@link AutoCloseable}. It is called once for every distinct instance the test used,
 *       including ones {@code reopen} already closed, so {@code close()} should be idempotent.</li>
 *   <li>{@link #concurrentWriters()}, {@link #appendsPerWriter()}, {@link #casIncrementsPerWriter()}:
 *       sizes of the concurrency tests (defaults 16, 500 and 100).</li>
 * </ul>
 *
 * <p>A persistent backend typically declares a {@code @TempDir Path} field (injected before
 * {@code createStore} runs) so each test starts on an empty folder.
 *
 * <p>Each test gets a fresh {@link MutableClock} starting at {@link #START}; tests move it instead of
 * sleeping. The whole contract takes about a second on an in-memory store.
 */
public abstract class SessionStoreContract {

    /** Where every test's clock starts. */
    protected static final Instant START = Instant.parse("2026-01-02T03:04:05.678901Z");

    private MutableClock clock;
    private SessionStore store;
    private final Set<SessionStore> opened = new LinkedHashSet<>();

    /**
     * A new, empty store whose entry timestamps come from {@code clock}.
     *
     * @param clock where the store's entry timestamps come from
     * @return a new, empty store
     */
    protected abstract SessionStore createStore(Clock clock);

    /**
     * The same data seen by a new instance, as after a process restart. Default: {@code store}
     * itself, for stores that live only in memory.
     *
     * @param store the store in use (close it first if it holds files or connections)
     * @return a store over the same data
     */
    protected SessionStore reopen(SessionStore store) {
        return store;
    }

    /**
     * Releases a store after each test; default: {@link AutoCloseable#close()} if it is one.
     *
     * @param store a store the test used
     * @throws Exception whatever closing throws; it fails the test
     */
    protected void closeStore(SessionStore store) throws Exception {
        if (store instanceof AutoCloseable) {
            ((AutoCloseable) store).close();
        }
    }

    /**
     * Threads in the concurrency tests.
     *
     * @return the number of threads (default 16)
     */
    protected int concurrentWriters() {
        return 16;
    }

    /**
     * Single-entry appends per thread in the concurrent append test (also caps, at 100, the batches
     * appended while a reader watches for half-visible batches).
     *
     * @return the number of appends per thread (default 500)
     */
    protected int appendsPerWriter() {
        return 500;
    }

    /**
     * Compare-and-set increments per thread in the state concurrency tests.
     *
     * @return the number of increments per thread (default 100)
     */
    protected int casIncrementsPerWriter() {
        return 100;
    }

    /**
     * The test's clock (the one given to {@link #createStore(Clock)}).
     *
     * @return the test's clock
     */
    protected final MutableClock clock() {
        return clock;
    }

    /**
     * The store under test (the latest instance, after any {@link #reopen}).
     *
     * @return the store under test
     */
    protected final SessionStore store() {
        return store;
    }

    /** Before each test: a fresh clock at {@link #START} and a store from {@link #createStore}, checked empty. */
    @BeforeEach
    protected final void openStore() {
        clock = MutableClock.at(START);
        store = track(createStore(clock));
        assertThat(store.sessions()).as("createStore must return an empty store").isEmpty();
    }

    /**
     * After each test: {@link #closeStore} on every distinct store instance the test used.
     *
     * @throws Exception what {@link #closeStore} threw
     */
    @AfterEach
    protected final void closeStores() throws Exception {
        for (SessionStore s : opened) {
            closeStore(s);
        }
        opened.clear();
    }

    /**
     * Restarts the store and returns the new instance.
     *
     * @return the store after a restart
     */
    protected final SessionStore restarted() {
        store = track(reopen(store));
        return store;
    }

    private SessionStore track(SessionStore s) {
        assertThat(s).as("store").isNotNull();
        opened.add(s);
        return s;
    }

    // ---------------------------------------------------------------- unknown sessions, basics

    @Test
    void should_read_empty_when_session_is_unknown() {
        assertThat(store.read("nobody", 0, 10)).isEmpty();
        assertThat(store.readLast("nobody", 10)).isEmpty();
        assertThat(store.nextIndex("nobody")).isZero();
        assertThat(store.state("nobody")).isEqualTo(SessionState.EMPTY);
        assertThat(store.getMessages("nobody")).isEmpty();
        store.trim("nobody", 5);
        store.delete("nobody");

        assertThat(store.sessions()).as("reads must not create sessions").isEmpty();
        assertThat(restarted().nextIndex("nobody")).isZero();
    }

    @Test
    void should_assign_consecutive_indices_when_appending_batches() {
        List<Entry> first = store.append("s", entries("a", "b"));
        List<Entry> second = store.append("s", entries("c", "d", "e"));

        assertThat(first).extracting(Entry::index).containsExactly(0L, 1L);
        assertThat(second).extracting(Entry::index).containsExactly(2L, 3L, 4L);
        assertThat(texts(first)).containsExactly("a", "b");
        assertThat(store.nextIndex("s")).isEqualTo(5);

        List<Entry> all = new ArrayList<>(first);
        all.addAll(second);
        assertThat(store.read("s", 0, Integer.MAX_VALUE)).isEqualTo(all);
        assertThat(restarted().read("s", 0, Integer.MAX_VALUE)).isEqualTo(all);
        assertThat(store.nextIndex("s")).isEqualTo(5);
    }

    @Test
    void should_store_nothing_when_batch_is_empty() {
        store.append("s", entries("a"));

        assertThat(store.append("s", List.of())).isEmpty();

        assertThat(store.nextIndex("s")).isEqualTo(1);
        assertThat(texts(store.read("s", 0, 10))).containsExactly("a");
    }

    @Test
    void should_read_from_index_when_from_index_and_max_count_are_given() {
        store.append("s", entries("a", "b", "c", "d", "e"));

        assertThat(store.read("s", 2, 2)).extracting(Entry::index).containsExactly(2L, 3L);
        assertThat(store.read("s", 3, 100)).extracting(Entry::index).containsExactly(3L, 4L);
        assertThat(store.read("s", 5, 10)).isEmpty();
        assertThat(store.read("s", 1_000, 10)).isEmpty();
        assertThat(store.read("s", 0, 0)).isEmpty();
        assertThat(texts(restarted().read("s", 1, 3))).containsExactly("b", "c", "d");
    }

    @Test
    void should_read_last_entries_oldest_first_when_read_last_is_called() {
        store.append("s", entries("a", "b", "c", "d", "e"));

        assertThat(texts(store.readLast("s", 2))).containsExactly("d", "e");
        assertThat(texts(store.readLast("s", 100))).containsExactly("a", "b", "c", "d", "e");
        assertThat(store.readLast("s", 0)).isEmpty();
        assertThat(restarted().readLast("s", 3)).extracting(Entry::index).containsExactly(2L, 3L, 4L);
    }

    @Test
    void should_return_snapshots_when_store_changes_after_a_read() {
        store.append("s", entries("a"));
        List<Entry> read = store.read("s", 0, 10);
        List<Entry> last = store.readLast("s", 10);
        List<ChatMessage> messages = store.getMessages("s");

        store.append("s", entries("b"));
        store.replace("s", entries("x", "y", "z"));

        assertThat(texts(read)).containsExactly("a");
        assertThat(texts(last)).containsExactly("a");
        assertThat(messages).containsExactly(UserMessage.from("a"));
    }

    @Test
    void should_keep_sessions_isolated_when_several_sessions_are_written() {
        store.append("a", entries("a1", "a2"));
        store.append("b", entries("b1"));
        store.compareAndSetState("a", 0, SessionState.EMPTY.withAttributes(Map.of("owner", "a")));

        assertThat(store.append("b", entries("b2"))).extracting(Entry::index).containsExactly(1L);
        assertThat(texts(store.read("a", 0, 10))).containsExactly("a1", "a2");
        assertThat(texts(store.read("b", 0, 10))).containsExactly("b1", "b2");
        assertThat(store.state("b")).isEqualTo(SessionState.EMPTY);

        store.delete("a");
        store.replace("c", entries("c1"));
        store.trim("c", 1);

        assertThat(texts(restarted().read("b", 0, 10))).containsExactly("b1", "b2");
        assertThat(store.read("a", 0, 10)).isEmpty();
        assertThat(store.nextIndex("b")).isEqualTo(2);
    }

    @Test
    @Timeout(20)
    void should_show_a_batch_all_or_nothing_when_read_while_appending() throws Exception {
        int batchSize = 10;
        int batches = Math.min(100, appendsPerWriter());
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> reader = pool.submit(() -> {
                int reads = 0;
                while (!done.get() || reads == 0) {
                    List<Entry> seen = store.read("s", 0, Integer.MAX_VALUE);
                    assertThat(seen.size() % batchSize).as("entries visible mid-batch").isZero();
                    assertThat(store.readLast("s", batchSize * batches).size() % batchSize).isZero();
                    for (int i = 0; i < seen.size(); i++) {
                        assertThat(seen.get(i).index()).isEqualTo(i);
                    }
                    reads++;
                }
                return reads;
            });
            Future<?> writer = pool.submit(() -> {
                try {
                    for (int b = 0; b < batches; b++) {
                        List<String> texts = new ArrayList<>();
                        for (int i = 0; i < batchSize; i++) {
                            texts.add(b + "." + i);
                        }
                        store.append("s", entries(texts.toArray(new String[0])));
                    }
                } finally {
                    done.set(true);
                }
                return null;
            });
            writer.get(20, TimeUnit.SECONDS);
            assertThat(reader.get(20, TimeUnit.SECONDS)).isPositive();
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.nextIndex("s")).isEqualTo((long) batchSize * batches);
    }

    // ---------------------------------------------------------------- idempotency keys

    @Test
    void should_store_once_and_return_first_entries_when_idempotency_key_repeats() {
        List<Entry> first = store.append("s", entries("q", "a"), "request-1");
        clock.advance(Duration.ofSeconds(5));

        List<Entry> again = store.append("s", entries("q", "a"), "request-1");
        List<Entry> otherContent = store.append("s", entries("different"), "request-1");

        assertThat(again).isEqualTo(first);
        assertThat(otherContent).isEqualTo(first);
        assertThat(first).allSatisfy(e -> assertThat(e.idempotencyKey()).contains("request-1"));
        assertThat(store.nextIndex("s")).isEqualTo(2);
        assertThat(restarted().append("s", entries("q", "a"), "request-1")).isEqualTo(first);
        assertThat(store.read("s", 0, 10)).isEqualTo(first);
    }

    @Test
    void should_store_again_when_key_differs_or_session_differs() {
        store.append("s", entries("a"), "k1");

        assertThat(store.append("s", entries("b"), "k2")).extracting(Entry::index).containsExactly(1L);
        assertThat(store.append("other", entries("c"), "k1")).extracting(Entry::index).containsExactly(0L);
        assertThat(store.append("s", entries("d"))).extracting(Entry::index).containsExactly(2L);
        assertThat(store.read("s", 2, 1)).allSatisfy(e -> assertThat(e.idempotencyKey()).isEmpty());
    }

    @Test
    void should_accept_key_when_it_has_the_maximum_length() {
        String longest = "k".repeat(SessionStore.MAX_IDEMPOTENCY_KEY_LENGTH);

        store.append("s", entries("a"), longest);

        assertThat(store.append("s", entries("a"), longest)).extracting(Entry::index).containsExactly(0L);
        assertThat(restarted().read("s", 0, 10)).singleElement()
                .satisfies(e -> assertThat(e.idempotencyKey()).contains(longest));
    }

    @ParameterizedTest
    @MethodSource("io.github.memorypack.testkit.SessionStoreContract#badIdempotencyKeys")
    void should_reject_key_before_any_io_when_key_is_blank_or_too_long(String key) {
        store.append("existing", entries("a"));

        assertThatThrownBy(() -> store.append("s", entries("x"), key)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.append("existing", entries("x"), key))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(store.sessions()).containsExactly("existing");
        assertThat(store.nextIndex("existing")).isEqualTo(1);
    }

    static Stream<String> badIdempotencyKeys() {
        return Stream.of("", " ", "\t\n", "k".repeat(SessionStore.MAX_IDEMPOTENCY_KEY_LENGTH + 1));
    }

    @Test
    void should_store_nothing_and_return_the_kept_entries_when_a_key_is_retried_after_a_trim_cut_its_batch() {
        store.append("s", entries("older"));
        List<Entry> batch = store.append("s", entries("q", "a1", "a2"), "request-1");
        store.trim("s", 2);

        assertThat(store.append("s", entries("q"), "request-1")).as("the retry after the trim")
                .isEqualTo(batch.subList(1, 3));
        assertThat(restarted().append("s", entries("q"), "request-1")).as("the retry after a restart")
                .isEqualTo(batch.subList(1, 3));
        assertThat(store.read("s", 0, 10)).isEqualTo(batch.subList(1, 3));
        assertThat(store.nextIndex("s")).isEqualTo(4);
    }

    @Test
    void should_store_a_batch_under_a_key_when_the_key_was_used_before_only_by_an_empty_append() {
        assertThat(store.append("s", List.of(), "request-1")).isEmpty();
        assertThat(store.append("s", List.of())).isEmpty();
        assertThat(store.sessions()).as("an empty append creates no session").isEmpty();

        List<Entry> stored = store.append("s", entries("q"), "request-1");

        assertThat(texts(stored)).containsExactly("q");
        assertThat(restarted().read("s", 0, 10)).isEqualTo(stored);
        assertThat(store.append("s", entries("q"), "request-1")).isEqualTo(stored);
        assertThat(store.append("s", List.of(), "request-1")).as("an empty append under a stored key: the first entries")
                .isEqualTo(stored);
        assertThat(store.nextIndex("s")).isEqualTo(1);
    }

    @Test
    void should_forget_keys_when_session_is_replaced_or_deleted() {
        store.append("s", entries("a"), "k");
        store.replace("s", entries("r"));

        assertThat(store.append("s", entries("b"), "k")).extracting(Entry::index).containsExactly(2L);

        store.delete("s");

        assertThat(store.append("s", entries("c"), "k")).extracting(Entry::index).containsExactly(0L);
        assertThat(texts(restarted().read("s", 0, 10))).containsExactly("c");
    }

    // ---------------------------------------------------------------- ids, timestamps, tokens, metadata

    @Test
    void should_stamp_entries_with_clock_time_when_appended() {
        Instant t0 = clock.instant();
        store.append("s", entries("a", "b"));
        clock.advance(Duration.ofMinutes(3).plusNanos(1_000));
        Instant t1 = clock.instant();
        store.append("s", entries("c"));
        clock.set(START.minus(Duration.ofDays(1)));
        Instant t2 = clock.instant();
        store.replace("r", entries("d"));

        assertThat(store.read("s", 0, 10)).extracting(Entry::timestamp).containsExactly(t0, t0, t1);
        assertThat(restarted().read("s", 0, 10)).extracting(Entry::timestamp).containsExactly(t0, t0, t1);
        assertThat(store.read("r", 0, 10)).extracting(Entry::timestamp).containsExactly(t2);
    }

    @Test
    void should_give_unique_stable_ids_when_entries_are_appended() {
        for (int i = 0; i < 20; i++) {
            store.append("s", entries("a" + i, "b" + i));
            store.append("t", entries("c" + i));
        }
        List<Entry> s = store.read("s", 0, Integer.MAX_VALUE);
        List<Entry> t = store.read("t", 0, Integer.MAX_VALUE);
        Set<String> ids = new HashSet<>();
        Stream.concat(s.stream(), t.stream()).forEach(e -> {
            assertThat(e.id()).isNotBlank();
            assertThat(ids.add(e.id())).as("duplicate id %s", e.id()).isTrue();
        });

        assertThat(ids).hasSize(60);
        assertThat(store.read("s", 0, Integer.MAX_VALUE)).extracting(Entry::id).isEqualTo(ids(s));
        assertThat(restarted().read("s", 0, Integer.MAX_VALUE)).extracting(Entry::id).isEqualTo(ids(s));
        assertThat(store.readLast("t", 100)).extracting(Entry::id).isEqualTo(ids(t));
    }

    @Test
    void should_keep_token_counts_and_metadata_when_round_tripped() {
        Map<String, String> metadata = Map.of("request", "r-1", "note", "line one\nline \"two\" ✓", "empty", "");
        List<Entry> stored = store.append("s", List.of(
                NewEntry.of(UserMessage.from("a"), 42, metadata),
                NewEntry.of(AiMessage.from("b"), 0),
                NewEntry.of(AiMessage.from("c"))));

        assertThat(stored).extracting(Entry::tokenCount).containsExactly(42, 0, Entry.UNKNOWN_TOKENS);
        assertThat(stored.get(0).metadata()).isEqualTo(metadata);
        assertThat(stored.get(1).metadata()).isEmpty();
        List<Entry> read = restarted().read("s", 0, 10);
        assertThat(read).isEqualTo(stored);
        assertThat(read.get(2).hasTokenCount()).isFalse();
    }

    // ---------------------------------------------------------------- state compare-and-set

    @Test
    void should_increment_version_when_compare_and_set_succeeds() {
        SessionState wanted = fullState(99);

        Optional<SessionState> first = store.compareAndSetState("s", 0, wanted);

        assertThat(first).contains(wanted.withVersion(1));
        assertThat(store.state("s")).isEqualTo(wanted.withVersion(1));
        SessionState next = wanted.withAttributes(Map.of("turns", "2"));
        assertThat(store.compareAndSetState("s", 1, next)).contains(next.withVersion(2));
        assertThat(restarted().state("s")).isEqualTo(next.withVersion(2));
        assertThat(store.sessions()).containsExactly("s");
    }

    @Test
    void should_conflict_and_change_nothing_when_version_is_stale() {
        store.compareAndSetState("s", 0, fullState(0));
        SessionState current = store.state("s");

        assertThat(store.compareAndSetState("s", 0, SessionState.EMPTY)).isEmpty();
        assertThat(store.compareAndSetState("s", 7, SessionState.EMPTY)).isEmpty();

        assertThat(store.state("s")).isEqualTo(current);
        assertThat(restarted().state("s")).isEqualTo(current);
    }

    @Test
    void should_not_create_session_when_compare_and_set_fails_on_unknown_session() {
        assertThat(store.compareAndSetState("s", 3, fullState(0))).isEmpty();

        assertThat(store.state("s")).isEqualTo(SessionState.EMPTY);
        assertThat(store.sessions()).isEmpty();
    }

    @Test
    void should_never_conflict_when_appends_and_state_updates_interleave() {
        SessionState before = store.state("s");
        store.append("s", entries("a"));

        Optional<SessionState> updated = store.compareAndSetState("s", before.version(), fullState(0));
        store.append("s", entries("b"));

        assertThat(updated).isPresent();
        assertThat(store.state("s").version()).isEqualTo(before.version() + 1);
        assertThat(store.compareAndSetState("s", before.version() + 1, SessionState.EMPTY)).isPresent();
        assertThat(texts(store.read("s", 0, 10))).containsExactly("a", "b");
    }

    // ---------------------------------------------------------------- replace, trim

    @Test
    void should_continue_indices_and_keep_state_when_log_is_replaced() {
        store.append("s", entries("a", "b", "c"));
        SessionState state = store.compareAndSetState("s", 0, fullState(0)).orElseThrow();
        List<String> oldIds = ids(store.read("s", 0, 10));

        store.replace("s", entries("x", "y"));

        List<Entry> read = store.read("s", 0, 10);
        assertThat(read).extracting(Entry::index).containsExactly(3L, 4L);
        assertThat(texts(read)).containsExactly("x", "y");
        assertThat(ids(read)).doesNotContainAnyElementsOf(oldIds);
        assertThat(store.nextIndex("s")).isEqualTo(5);
        assertThat(store.state("s")).isEqualTo(state);
        assertThat(restarted().append("s", entries("z"))).extracting(Entry::index).containsExactly(5L);
        assertThat(store.read("s", 0, 10)).extracting(Entry::index).containsExactly(3L, 4L, 5L);
        assertThat(store.state("s")).isEqualTo(state);
    }

    @Test
    void should_empty_the_log_but_keep_next_index_when_replaced_with_nothing() {
        store.append("s", entries("a", "b"));

        store.replace("s", List.of());

        assertThat(store.read("s", 0, 10)).isEmpty();
        assertThat(restarted().nextIndex("s")).isEqualTo(2);
        assertThat(store.append("s", entries("c"))).extracting(Entry::index).containsExactly(2L);
    }

    @Test
    void should_keep_indices_and_skip_trimmed_entries_when_log_is_trimmed() {
        store.append("s", entries("a", "b", "c", "d", "e"));
        store.compareAndSetState("s", 0, fullState(0));
        SessionState state = store.state("s");

        store.trim("s", 2);

        assertThat(store.read("s", 0, 10)).extracting(Entry::index).containsExactly(2L, 3L, 4L);
        assertThat(store.read("s", 1, 2)).extracting(Entry::index).containsExactly(2L, 3L);
        assertThat(texts(store.readLast("s", 10))).containsExactly("c", "d", "e");
        assertThat(store.getMessages("s")).as("the state's system message, then the retained messages")
                .containsExactly(state.systemMessage().orElseThrow(), UserMessage.from("c"), UserMessage.from("d"),
                        UserMessage.from("e"));
        assertThat(store.nextIndex("s")).isEqualTo(5);
        assertThat(store.state("s")).isEqualTo(state);

        store.trim("s", 1);
        assertThat(restarted().read("s", 0, 10)).extracting(Entry::index).containsExactly(2L, 3L, 4L);
        assertThat(store.append("s", entries("f"))).extracting(Entry::index).containsExactly(5L);

        store.trim("s", 100);
        assertThat(store.read("s", 0, 10)).isEmpty();
        assertThat(store.nextIndex("s")).isEqualTo(6);
        assertThat(restarted().append("s", entries("g"))).extracting(Entry::index).containsExactly(6L);
    }

    // ---------------------------------------------------------------- derived data

    @ParameterizedTest
    @ValueSource(strings = {"", "Recall", "recall.index", "..", "../x", "a/b", "a b", "\u00e4", "a-kind-name-that-is-longer-than-the-sixty-four-characters-it-may-be"})
    void should_refuse_the_kind_when_a_derived_data_kind_is_not_a_plain_name(String kind) {
        assertThatThrownBy(() -> store.derivedDataDirectory(kind)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.derivedDataDirectory(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.sessions()).isEmpty();
    }

    @Test
    void should_keep_one_process_id_that_is_never_reported_ended_while_the_process_runs() {
        String id = store.processId();
        if (id == null) {
            return; // a store that cannot tell whether a process has ended: open turns end by the timeout only
        }
        assertThat(store.processId()).isEqualTo(id);
        assertThat(store.processEnded(id)).isFalse();
        // another store instance on the same data, in this process (a second provider, say)
        assertThat(restarted().processEnded(id)).isFalse();
        // what marks the process alive is no session, and an id that is no mark's name names no ended process
        assertThat(store.sessions()).isEmpty();
        assertThat(store.processEnded("../" + id)).isFalse();
        assertThat(store.sessions()).isEmpty();
    }

    @Test
    void should_keep_derived_data_apart_from_every_session_when_the_store_offers_a_folder() throws IOException {
        // given: a session named like the kind, and derived data written where the store says
        store.append("recall-index", entries("1"));
        store.append("a", entries("1"));
        Optional<Path> folder = store.derivedDataDirectory("recall-index");
        if (folder.isEmpty()) {
            // a store that offers none offers none after a restart either
            assertThat(restarted().derivedDataDirectory("recall-index")).isEmpty();
            return;
        }
        Files.createDirectories(folder.get());
        Files.writeString(folder.get().resolve("segments"), "derived");

        // when
        store.delete("recall-index");
        SessionStore reopened = restarted();

        // then: no session sees it, it outlives a session's deletion, and it is where it was
        assertThat(reopened.sessions()).containsExactly("a");
        assertThat(reopened.read("a", 0, 10)).hasSize(1);
        assertThat(reopened.derivedDataDirectory("recall-index")).isEqualTo(folder);
        assertThat(reopened.derivedDataDirectory("other-kind")).isPresent().isNotEqualTo(folder);
        assertThat(Files.readString(folder.get().resolve("segments"))).isEqualTo("derived");
        reopened.append("recall-index", entries("2"));
        assertThat(reopened.read("recall-index", 0, 10)).extracting(e -> ((UserMessage) e.message()).singleText())
                .containsExactly("2");
    }

    // ---------------------------------------------------------------- sessions, delete

    @Test
    void should_list_sessions_sorted_when_sessions_have_entries_or_state() {
        store.append("b", entries("1"));
        store.append("A-2", entries("1"));
        store.append("a.1", entries("1"));
        store.compareAndSetState("c_state_only", 0, fullState(0));

        assertThat(store.sessions()).containsExactly("A-2", "a.1", "b", "c_state_only");

        store.delete("b");
        store.delete("never-existed");

        assertThat(store.sessions()).containsExactly("A-2", "a.1", "c_state_only");
    }

    @Test
    void should_list_memory_ids_as_the_application_gave_them_when_sessions_were_written_under_any_id() {
        // given: sessions under a plain id, ids that need encoding, a number, and an id too long to encode
        // (written through LangChain4j's ChatMemoryStore methods, which take the memory id itself)
        String tooLong = "tenant:42/" + "Zoë ".repeat(40);
        List<Object> memoryIds = List.of("plain-id", "alice@example.com", "Zoë", 42L, tooLong, "tenant:42/chat");
        for (Object memoryId : memoryIds) {
            store.updateMessages(memoryId, List.of(UserMessage.from("hi " + memoryId)));
        }
        // and one written by session id alone: a hashed session id whose memory id nobody recorded
        String unknownHash = SessionIds.of("x".repeat(200));
        store.append(unknownHash, entries("a"));

        // when
        List<String> listed = store.memoryIds();

        // then: each memory id's text once, sorted; sessions() has the session ids the store keys by
        List<String> expected = new ArrayList<>(List.of("plain-id", "alice@example.com", "Zoë", "42", tooLong,
                "tenant:42/chat", unknownHash));
        Collections.sort(expected);
        assertThat(listed).containsExactlyElementsOf(expected);
        assertThat(store.sessions()).hasSize(expected.size()).contains("plain-id", "42", unknownHash)
                .doesNotContain("alice@example.com", "Zoë", tooLong);

        store.deleteMessages("Zoë");
        assertThat(store.memoryIds()).hasSize(expected.size() - 1).doesNotContain("Zoë");
    }

    @Test
    void should_remove_log_state_and_index_when_session_is_deleted() {
        store.append("s", entries("a", "b"));
        store.compareAndSetState("s", 0, fullState(0));
        store.append("keep", entries("k"));

        store.delete("s");

        assertThat(store.read("s", 0, 10)).isEmpty();
        assertThat(store.state("s")).isEqualTo(SessionState.EMPTY);
        assertThat(store.nextIndex("s")).isZero();
        assertThat(store.sessions()).containsExactly("keep");
        assertThat(restarted().read("s", 0, 10)).isEmpty();
        assertThat(store.state("s")).isEqualTo(SessionState.EMPTY);
        assertThat(store.append("s", entries("c"))).extracting(Entry::index).containsExactly(0L);
        assertThat(store.compareAndSetState("s", 0, fullState(0))).isPresent();
    }

    // ---------------------------------------------------------------- message round trip

    @Test
    void should_round_trip_every_message_type_exactly_when_store_is_reopened() {
        List<ChatMessage> messages = SampleMessages.everyType();
        for (ChatMessage message : messages) {
            store.append("s", List.of(NewEntry.of(message)));
        }
        store.append("batch", messages.stream().map(NewEntry::of).collect(Collectors.toList()));

        SessionStore reopened = restarted();

        assertThat(reopened.read("s", 0, 100)).extracting(Entry::message).containsExactlyElementsOf(messages);
        assertThat(reopened.getMessages("batch")).containsExactlyElementsOf(messages);
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage read = reopened.getMessages("s").get(i);
            assertThat(read.getClass()).isEqualTo(messages.get(i).getClass());
            assertThat(read.type()).isEqualTo(messages.get(i).type());
        }
    }

    @Test
    void should_round_trip_system_message_and_summary_when_state_is_reopened() {
        SessionState state = fullState(0);
        store.compareAndSetState("s", 0, state);

        SessionState read = restarted().state("s");

        assertThat(read).isEqualTo(state.withVersion(1));
        assertThat(read.systemMessage()).isEqualTo(state.systemMessage());
        assertThat(read.summary()).isEqualTo(state.summary());
    }

    // ---------------------------------------------------------------- LangChain4j ChatMemoryStore

    @Test
    void should_append_suffix_and_keep_entry_ids_when_update_messages_extends_stored_list() {
        List<ChatMessage> turn1 = List.of(SystemMessage.from("sys"), UserMessage.from("hi"), AiMessage.from("hello"));
        store.updateMessages("s", turn1);
        List<Entry> before = store.read("s", 0, 10);

        List<ChatMessage> turn2 = new ArrayList<>(turn1);
        turn2.add(UserMessage.from("how are you?"));
        turn2.add(AiMessage.from("fine"));
        store.updateMessages("s", turn2);
        store.updateMessages("s", turn2);

        List<Entry> after = store.read("s", 0, 10);
        assertThat(after.subList(0, 3)).isEqualTo(before);
        assertThat(after).extracting(Entry::index).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(restarted().getMessages("s")).containsExactlyElementsOf(turn2);
    }

    @Test
    void should_replace_log_when_update_messages_is_not_an_extension() {
        store.updateMessages("s", List.of(UserMessage.from("a"), AiMessage.from("b"), UserMessage.from("c")));
        SessionState state = store.compareAndSetState("s", 0, fullState(0)).orElseThrow();
        List<String> oldIds = ids(store.read("s", 0, 10));

        List<ChatMessage> evicted = List.of(AiMessage.from("b"), UserMessage.from("c"));
        store.updateMessages("s", evicted);

        // replaced, and without the system message (a record says so): LangChain4j's "replace all messages"
        List<Entry> read = store.read("s", 0, 10);
        assertThat(read.subList(0, 2)).extracting(Entry::message).containsExactlyElementsOf(evicted);
        assertThat(read).extracting(Entry::index).containsExactly(3L, 4L, 5L);
        assertThat(ids(read)).doesNotContainAnyElementsOf(oldIds);
        assertThat(store.state("s")).isEqualTo(state);
        assertThat(restarted().getMessages("s")).containsExactlyElementsOf(evicted);

        store.updateMessages("s", List.of());
        assertThat(restarted().getMessages("s")).isEmpty();
        assertThat(store.nextIndex("s")).as("indices continue after the replaced entries and each record")
                .isEqualTo(7);
    }

    @Test
    void should_reject_and_write_nothing_when_update_messages_gets_null_or_a_list_holding_null() {
        store.updateMessages("s", List.of(UserMessage.from("a")));
        long next = store.nextIndex("s");

        assertThatThrownBy(() -> store.updateMessages("s", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.updateMessages("s", java.util.Arrays.asList(UserMessage.from("a"), null)))
                .as("an extension holding null").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.updateMessages("s", java.util.Arrays.asList(null, UserMessage.from("b"))))
                .as("a replacement holding null").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.updateMessages("new", null)).isInstanceOf(IllegalArgumentException.class);

        assertThat(store.getMessages("s")).containsExactly(UserMessage.from("a"));
        assertThat(store.nextIndex("s")).isEqualTo(next);
        assertThat(store.sessions()).containsExactly("s");
        assertThat(restarted().getMessages("s")).containsExactly(UserMessage.from("a"));
    }

    @Test
    void should_behave_like_chat_memory_store_when_used_through_langchain4j_methods() {
        Object memoryId = 42;
        List<ChatMessage> messages = List.of(UserMessage.from("q"), AiMessage.from("a"));

        store.updateMessages(memoryId, messages);

        assertThat(store.getMessages(memoryId)).containsExactlyElementsOf(messages);
        assertThat(store.getMessages("42")).containsExactlyElementsOf(messages);
        assertThat(store.sessions()).containsExactly("42");

        store.deleteMessages(memoryId);

        assertThat(store.getMessages(memoryId)).isEmpty();
        assertThat(store.sessions()).isEmpty();
        assertThat(restarted().getMessages(memoryId)).isEmpty();
    }

    // ---------------------------------------------------------------- bad session ids

    @ParameterizedTest
    @MethodSource("io.github.memorypack.testkit.SessionStoreContract#badSessionIds")
    void should_reject_id_and_touch_nothing_when_session_id_is_invalid(String badId) {
        store.append("good", entries("a"));
        store.compareAndSetState("good", 0, fullState(0));
        List<String> sessionsBefore = store.sessions();

        for (Map.Entry<String, Consumer<String>> call : everyMethod().entrySet()) {
            assertThatThrownBy(() -> call.getValue().accept(badId))
                    .as("%s(%s)", call.getKey(), badId)
                    .isInstanceOf(IllegalArgumentException.class);
        }

        assertThat(store.sessions()).isEqualTo(sessionsBefore);
        assertThat(restarted().sessions()).isSubsetOf(sessionsBefore);
        assertThat(texts(store.read("good", 0, 10))).containsExactly("a");
        assertThat(store.state("good").version()).isEqualTo(1);
    }

    static Stream<String> badSessionIds() {
        return Stream.of("../x", "/etc/passwd", "a/b", "a\\b", "a*b", "a?b", "..", ".", "", "x".repeat(129),
                "a\u0000b", "a b", "ü", null);
    }

    private Map<String, Consumer<String>> everyMethod() {
        Map<String, Consumer<String>> calls = new java.util.LinkedHashMap<>();
        calls.put("append", id -> store.append(id, entries("x")));
        calls.put("appendWithKey", id -> store.append(id, entries("x"), "key"));
        calls.put("read", id -> store.read(id, 0, 10));
        calls.put("readLast", id -> store.readLast(id, 10));
        calls.put("nextIndex", id -> store.nextIndex(id));
        calls.put("state", id -> store.state(id));
        calls.put("compareAndSetState", id -> store.compareAndSetState(id, 0, fullState(0)));
        calls.put("replace", id -> store.replace(id, entries("x")));
        calls.put("trim", id -> store.trim(id, 1));
        calls.put("delete", id -> store.delete(id));
        return calls;
    }

    /** Memory ids of every form LangChain4j passes as {@code @MemoryId}. */
    static Stream<Object> anyMemoryIds() {
        record Chat(String tenant, long chat) {
        }
        return Stream.of("alice@example.com", "tenant:42/chat-7", "Zo\u00eb", "user 1", "x".repeat(300), 42L,
                new Chat("t1", 7), "../etc/passwd", "a*b?[c]", "~YWxpY2U");
    }

    @ParameterizedTest
    @MethodSource("io.github.memorypack.testkit.SessionStoreContract#anyMemoryIds")
    void should_keep_any_memory_id_apart_and_list_it_back_when_used_through_chat_memory_store(Object memoryId) {
        // given: the same messages under a plain id that could be confused with it
        store.updateMessages("plain", List.of(UserMessage.from("other")));

        // when: as LangChain4j's own memories write, the whole list each time
        store.updateMessages(memoryId, List.of(UserMessage.from("mine " + memoryId)));
        store.updateMessages(memoryId, List.of(UserMessage.from("mine " + memoryId), AiMessage.from("yours")));

        // then: the second write appended the new message only
        assertThat(store.getMessages(memoryId)).containsExactly(UserMessage.from("mine " + memoryId),
                AiMessage.from("yours"));
        assertThat(restarted().getMessages(memoryId)).containsExactly(UserMessage.from("mine " + memoryId),
                AiMessage.from("yours"));
        assertThat(store.getMessages("plain")).containsExactly(UserMessage.from("other"));
        String sessionId = io.github.memorypack.core.SessionIds.of(memoryId);
        assertThat(store.sessions()).contains(sessionId);
        assertThat(io.github.memorypack.core.SessionIds.memoryId(restarted(), sessionId))
                .isEqualTo(String.valueOf(memoryId));
        store.deleteMessages(memoryId);
        assertThat(store.getMessages(memoryId)).isEmpty();
        assertThat(store.getMessages("plain")).containsExactly(UserMessage.from("other"));
    }

    // ---------------------------------------------------------------- random operations against a model

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void should_match_a_simple_model_when_random_operations_run(long seed) {
        Random random = new Random(seed);
        Map<String, ModelSession> model = new HashMap<>();
        Map<String, String> firstIds = new HashMap<>();
        List<String> history = new ArrayList<>();
        int texts = 0;
        int keys = 0;
        for (int step = 0; step < 150; step++) {
            String s = "s" + random.nextInt(3);
            ModelSession m = model.computeIfAbsent(s, id -> new ModelSession());
            clock.advance(Duration.ofMillis(1 + random.nextInt(1_000)));
            int op = random.nextInt(100);
            String did;
            if (op < 40) {
                List<String> batch = new ArrayList<>();
                for (int i = random.nextInt(3); i >= 0; i--) {
                    batch.add("e" + texts++);
                }
                int choice = random.nextInt(4);
                String key = choice == 1 ? "k" + keys++
                        : choice == 2 && !m.keys.isEmpty() ? new ArrayList<>(m.keys.keySet()).get(random.nextInt(m.keys.size()))
                        : null;
                did = "append " + batch + " key=" + key;
                List<Entry> got = store.append(s, entries(batch.toArray(new String[0])), key);
                List<ModelEntry> expected = key != null && m.keys.containsKey(key) ? m.keys.get(key) : m.append(batch, key);
                assertMatches(got, expected, seed, history, did);
            } else if (op < 50) {
                List<String> batch = new ArrayList<>();
                for (int i = random.nextInt(3); i > 0; i--) {
                    batch.add("e" + texts++);
                }
                did = "replace " + batch;
                store.replace(s, entries(batch.toArray(new String[0])));
                m.entries.clear();
                m.keys.clear();
                m.append(batch, null);
            } else if (op < 60) {
                long before = Math.max(0, m.next - m.entries.size() - 1 + random.nextInt(m.entries.size() + 3));
                did = "trim " + before;
                store.trim(s, before);
                m.entries.removeIf(e -> e.index < before);
                // keys of trimmed entries are not reused: whether a store still knows them is unspecified
                m.keys.values().removeIf(batch -> batch.get(0).index < before);
            } else if (op < 75) {
                long expected = Math.max(0, m.version + random.nextInt(3) - 1);
                did = "compareAndSet " + expected;
                SessionState next = SessionState.EMPTY.withAttributes(Map.of("step", String.valueOf(step)));
                Optional<SessionState> got = store.compareAndSetState(s, expected, next);
                assertThat(got.isPresent()).as(context(seed, history, did)).isEqualTo(expected == m.version);
                if (got.isPresent()) {
                    m.version++;
                    m.attributes = next.attributes();
                }
            } else if (op < 82) {
                did = "delete";
                store.delete(s);
                model.remove(s);
                m = new ModelSession();
            } else if (op < 88) {
                did = "restart";
                restarted();
            } else {
                int count = random.nextInt(5);
                long from = Math.max(0, m.next - random.nextInt(8));
                did = "readLast " + count + ", read from " + from;
                List<ModelEntry> tail = m.entries.subList(Math.max(0, m.entries.size() - count), m.entries.size());
                assertMatches(store.readLast(s, count), tail, seed, history, did);
                List<ModelEntry> fromIndex = new ArrayList<>(m.entries);
                fromIndex.removeIf(e -> e.index < from);
                assertMatches(store.read(s, from, 2), fromIndex.subList(0, Math.min(2, fromIndex.size())),
                        seed, history, did);
            }
            history.add(step + ": " + s + " " + did);
            String context = context(seed, history, "after it");
            List<Entry> all = store.read(s, 0, Integer.MAX_VALUE);
            assertMatches(all, m.entries, seed, history, "full read");
            for (Entry e : all) {
                assertThat(e.id()).as(context).isEqualTo(firstIds.computeIfAbsent(texts(List.of(e)).get(0), t -> e.id()));
            }
            assertThat(store.nextIndex(s)).as(context).isEqualTo(m.next);
            assertThat(store.state(s).version()).as(context).isEqualTo(m.version);
            assertThat(store.state(s).attributes()).as(context).isEqualTo(m.attributes);
        }
    }

    private void assertMatches(List<Entry> actual, List<ModelEntry> expected, long seed, List<String> history,
                               String did) {
        String context = context(seed, history, did);
        assertThat(actual).as(context).extracting(Entry::index).containsExactlyElementsOf(
                expected.stream().map(e -> e.index).collect(Collectors.toList()));
        assertThat(texts(actual)).as(context).containsExactlyElementsOf(
                expected.stream().map(e -> e.text).collect(Collectors.toList()));
        assertThat(actual).as(context).extracting(Entry::timestamp).containsExactlyElementsOf(
                expected.stream().map(e -> e.timestamp).collect(Collectors.toList()));
        assertThat(actual).as(context).extracting(e -> e.idempotencyKey().orElse(null)).containsExactlyElementsOf(
                expected.stream().map(e -> e.key).collect(Collectors.toList()));
    }

    private static String context(long seed, List<String> history, String did) {
        return "seed " + seed + ", last steps:\n  "
                + String.join("\n  ", history.subList(Math.max(0, history.size() - 15), history.size()))
                + "\n  now: " + did + "\n";
    }

    /** What one session should hold: the reference the random runs compare the store with. */
    private final class ModelSession {
        final List<ModelEntry> entries = new ArrayList<>();
        final Map<String, List<ModelEntry>> keys = new HashMap<>();
        long next;
        long version;
        Map<String, String> attributes = Map.of();

        List<ModelEntry> append(List<String> texts, String key) {
            List<ModelEntry> added = new ArrayList<>();
            for (String text : texts) {
                added.add(new ModelEntry(next++, text, clock.instant(), key));
            }
            entries.addAll(added);
            if (key != null) {
                keys.put(key, added);
            }
            return added;
        }
    }

    private static final class ModelEntry {
        final long index;
        final String text;
        final Instant timestamp;
        final String key;

        ModelEntry(long index, String text, Instant timestamp, String key) {
            this.index = index;
            this.text = text;
            this.timestamp = timestamp;
            this.key = key;
        }
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    @Timeout(60)
    void should_keep_every_entry_and_each_writer_order_when_writers_append_concurrently() throws Exception {
        int writers = concurrentWriters();
        int appends = appendsPerWriter();

        runConcurrently(writers, w -> {
            for (int i = 0; i < appends; i++) {
                store.append("s", entries(w + ":" + i));
            }
        });

        List<Entry> all = store.read("s", 0, Integer.MAX_VALUE);
        assertThat(all).hasSize(writers * appends);
        assertThat(store.nextIndex("s")).isEqualTo((long) writers * appends);
        assertThat(all).extracting(Entry::index)
                .containsExactlyElementsOf(IntStream.range(0, writers * appends).mapToObj(i -> (long) i)
                        .collect(Collectors.toList()));
        assertThat(new HashSet<>(ids(all))).hasSize(all.size());
        int[] nextPerWriter = new int[writers];
        for (String text : texts(all)) {
            String[] parts = text.split(":");
            int writer = Integer.parseInt(parts[0]);
            assertThat(Integer.parseInt(parts[1])).as("order of writer %d", writer).isEqualTo(nextPerWriter[writer]);
            nextPerWriter[writer]++;
        }
        assertThat(nextPerWriter).containsOnly(appends);
    }

    @Test
    @Timeout(60)
    void should_count_exactly_when_writers_increment_state_with_compare_and_set_retries() throws Exception {
        int writers = concurrentWriters();
        int increments = casIncrementsPerWriter();

        runConcurrently(writers, w -> {
            for (int i = 0; i < increments; i++) {
                incrementCounter("s");
            }
        });

        SessionState state = store.state("s");
        assertThat(state.attributes()).containsEntry("counter", String.valueOf(writers * increments));
        assertThat(state.version()).isEqualTo((long) writers * increments);
    }

    @Test
    @Timeout(60)
    void should_lose_neither_when_appends_and_compare_and_set_run_concurrently() throws Exception {
        int writers = Math.max(2, concurrentWriters());
        int appenders = writers / 2;
        int increments = casIncrementsPerWriter();

        runConcurrently(writers, w -> {
            for (int i = 0; i < increments; i++) {
                if (w < appenders) {
                    store.append("s", entries(w + ":" + i, w + ":" + i + "'"));
                } else {
                    incrementCounter("s");
                }
            }
        });

        List<String> texts = texts(store.read("s", 0, Integer.MAX_VALUE));
        assertThat(texts).hasSize(2 * appenders * increments);
        for (int i = 0; i < texts.size(); i += 2) {
            assertThat(texts.get(i + 1)).as("batches never interleave").isEqualTo(texts.get(i) + "'");
        }
        assertThat(store.state("s").attributes())
                .containsEntry("counter", String.valueOf((writers - appenders) * increments));
        assertThat(restarted().nextIndex("s")).isEqualTo(2L * appenders * increments);
    }

    private void incrementCounter(String sessionId) {
        while (true) {
            SessionState current = store.state(sessionId);
            int counter = Integer.parseInt(current.attributes().getOrDefault("counter", "0"));
            SessionState next = current.withAttributes(Map.of("counter", String.valueOf(counter + 1)));
            if (store.compareAndSetState(sessionId, current.version(), next).isPresent()) {
                return;
            }
        }
    }

    /**
     * Runs {@code work} on {@code threads} threads released together; rethrows the first failure.
     *
     * @param threads how many threads
     * @param work what each thread does, given its number (0 to {@code threads - 1})
     * @throws Exception the first exception a thread threw
     */
    protected static void runConcurrently(int threads, ThrowingIntConsumer work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Void>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Callable<Void> task = () -> {
                    start.await();
                    work.accept(id);
                    return null;
                };
                futures.add(pool.submit(task));
            }
            start.countDown();
            for (Future<Void> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Work done by one thread of {@link #runConcurrently}; gets the thread's number. */
    @FunctionalInterface
    protected interface ThrowingIntConsumer {
        /**
         * Does one thread's work.
         *
         * @param thread the thread's number, from 0
         * @throws Exception anything; {@link #runConcurrently} rethrows the first
         */
        void accept(int thread) throws Exception;
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Entries of user messages with the given texts and unknown token counts.
     *
     * @param texts the texts, one user message each
     * @return new entries of user messages, one per text
     */
    protected static List<NewEntry> entries(String... texts) {
        List<NewEntry> list = new ArrayList<>(texts.length);
        for (String text : texts) {
            list.add(NewEntry.of(UserMessage.from(text)));
        }
        return list;
    }

    /**
     * The texts of entries written by {@link #entries}.
     *
     * @param entries the entries
     * @return the texts of their messages, in order
     */
    protected static List<String> texts(List<Entry> entries) {
        return entries.stream().map(e -> ((UserMessage) e.message()).singleText()).collect(Collectors.toList());
    }

    private static List<String> ids(List<Entry> entries) {
        return entries.stream().map(Entry::id).collect(Collectors.toList());
    }

    /**
     * A state with every field set (system message, summary, attributes) and the given version.
     *
     * @param version the version
     * @return a state with a system message, a summary and attributes
     */
    protected static SessionState fullState(long version) {
        return new SessionState(version, SystemMessage.from("Be brief.\nAlways \"cite\" ✓"),
                new Summary("Alice likes tea.\nOpen question: \"when\"?", 3, 12, START.plusMillis(1)),
                Map.of("strategy", "summary-buffer", "note", "ünï\ncode"));
    }

    @Test
    @Timeout(120)
    void should_keep_reads_whole_and_ordered_when_deletes_replaces_and_trims_race_keyed_appends() throws Exception {
        int writers = Math.min(4, concurrentWriters());
        assertThat(deletesRacingAppends(store(), writers, 50)).hasSize(writers * 50);
    }

    @Test
    @Timeout(120)
    void should_count_exactly_and_keep_each_writer_order_when_threads_append_to_many_sessions() throws Exception {
        int writers = Math.min(4, concurrentWriters());
        assertThat(manySessions(store(), writers, 5, 10)).hasSize(5).allSatisfy(log -> assertThat(log).hasSize(writers * 10));
    }

    @Test
    void should_give_back_every_rare_message_exactly_after_a_restart() {
        List<ChatMessage> messages = SampleMessages.rare();
        for (ChatMessage message : messages) {
            store().append("rare", List.of(NewEntry.of(message)));
        }
        SessionStore reopened = restarted();
        assertThat(reopened.read("rare", 0, Integer.MAX_VALUE)).extracting(Entry::message)
                .containsExactlyElementsOf(messages);
    }

    /** Idempotency keys that differ only where a lossy encoding (lone surrogates to '?', escapes) would merge them. */
    private static final List<String> AWKWARD_KEYS = List.of("k", "k?", "k\uD800", "k\uDBFF", "k\uDC00",
            "k\uD800\uD800", "k\u0000", "k\\u0000", "k\\", "k\\\\", "k\n", "k\r\n", "k\uD83D\uDE00", "k\u00fc",
            "k\"", "k:1", "k{x}");

    @Test
    void should_store_every_key_once_and_apart_when_keys_differ_only_in_awkward_characters() {
        // when: one append per key, then each repeated with other content
        Map<String, String> metadata = new HashMap<>();
        for (int i = 0; i < AWKWARD_KEYS.size(); i++) {
            metadata.put(AWKWARD_KEYS.get(i), AWKWARD_KEYS.get((i + 1) % AWKWARD_KEYS.size()));
        }
        for (int i = 0; i < AWKWARD_KEYS.size(); i++) {
            store().append("s", List.of(NewEntry.of(UserMessage.from("first " + i), 1, metadata)), AWKWARD_KEYS.get(i));
        }
        for (int i = 0; i < AWKWARD_KEYS.size(); i++) {
            List<Entry> again = store().append("s", List.of(NewEntry.of(UserMessage.from("again"))), AWKWARD_KEYS.get(i));
            assertThat(again).extracting(e -> ((UserMessage) e.message()).singleText()).as("key #%d", i)
                    .containsExactly("first " + i);
        }

        // then: one entry per key, each with its own key and metadata, also after a restart
        SessionStore reopened = restarted();
        List<Entry> all = reopened.read("s", 0, 100);
        assertThat(all).extracting(Entry::idempotencyKey)
                .containsExactlyElementsOf(AWKWARD_KEYS.stream().map(Optional::of).toList());
        assertThat(all).allSatisfy(e -> assertThat(e.metadata()).isEqualTo(metadata));
        assertThat(reopened.append("s", List.of(NewEntry.of(UserMessage.from("again"))), "k\uDBFF"))
                .extracting(Entry::index).containsExactly(3L);
    }

    // ------------------------------------------------------------ races for a store's own tests

    /**
     * A race for a store's own tests: {@code threads} writers, each appending {@code perSession} turns
     * to each of {@code sessions} sessions ({@code race-0}, {@code race-1}, ...); then every session must
     * hold exactly every turn, at indices 0, 1, 2, ..., each writer's turns in its order.
     *
     * @param store      the store (empty sessions {@code race-*})
     * @param threads    writer threads
     * @param sessions   sessions each writer appends to
     * @param perSession turns each writer appends to each session
     * @return each session's log after the race, {@code race-0} first
     * @throws Exception what a writer threw, or a timeout
     */
    public static List<List<Entry>> manySessions(SessionStore store, int threads, int sessions, int perSession)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int writer = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perSession; i++) {
                        for (int s = 0; s < sessions; s++) {
                            store.append("race-" + s, List.of(NewEntry.of(UserMessage.from(writer + ":" + i))));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<List<Entry>> logs = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            List<Entry> log = store.read("race-" + s, 0, Integer.MAX_VALUE);
            logs.add(log);
            assertThat(log).as("session %d", s).hasSize(threads * perSession);
            checkWriterOrder(log);
            assertThat(log).extracting(Entry::index).as("session %d", s)
                    .containsExactlyElementsOf(LongStream.range(0, log.size()).boxed().toList());
        }
        return logs;
    }

    /**
     * A race for a store's own tests: writers append keyed turns to session {@code s} while another
     * thread deletes, replaces and trims it and a reader checks that every read shows increasing
     * indices, no entry or key twice and each writer's turns in order; then the session is deleted and
     * every key is appended twice: each is stored once, and the log holds each writer's turns in order.
     *
     * @param store   the store (session {@code s} empty)
     * @param writers writer threads
     * @param turns   keyed turns per writer
     * @return the log of session {@code s} after the retried keys
     * @throws Exception what a thread threw, or a timeout
     */
    public static List<Entry> deletesRacingAppends(SessionStore store, int writers, int turns) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        AtomicBoolean running = new AtomicBoolean(true);
        List<Throwable> readerErrors = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < turns; i++) {
                        String text = writer + ":" + i;
                        List<Entry> stored = store.append("s", List.of(NewEntry.of(UserMessage.from(text))), text);
                        assertThat(stored).extracting(e -> ((UserMessage) e.message()).singleText()).containsExactly(text);
                    }
                    return null;
                }));
            }
            Future<?> disturber = pool.submit(() -> {
                for (int n = 0; running.get(); n++) {
                    switch (n % 3) {
                        case 0 -> store.delete("s");
                        case 1 -> store.replace("s", new ArrayList<>(store.readLast("s", 5)).stream()
                                .map(e -> NewEntry.of(e.message())).toList());
                        default -> store.trim("s", store.nextIndex("s") - 3);
                    }
                }
                return null;
            });
            Future<?> reader = pool.submit(() -> {
                while (running.get()) {
                    try {
                        checkRaceRead(store.read("s", 0, Integer.MAX_VALUE));
                        checkRaceRead(store.readLast("s", 7));
                    } catch (Throwable e) {
                        readerErrors.add(e);
                        return null;
                    }
                }
                return null;
            });
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
            running.set(false);
            disturber.get(60, TimeUnit.SECONDS);
            reader.get(60, TimeUnit.SECONDS);
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
        assertThat(readerErrors).isEmpty();

        // retried keys: a key whose turn is still there stores nothing; the others are stored again
        store.delete("s");
        for (int w = 0; w < writers; w++) {
            for (int i = 0; i < turns; i++) {
                String text = w + ":" + i;
                store.append("s", List.of(NewEntry.of(UserMessage.from(text))), text);
                store.append("s", List.of(NewEntry.of(UserMessage.from("dup " + text))), text);
            }
        }
        List<Entry> log = store.read("s", 0, Integer.MAX_VALUE);
        assertThat(log).hasSize(writers * turns);
        checkWriterOrder(log);
        return log;
    }

    /**
     * A race for a store's own tests: each of {@code stores} (separate instances over the same data, as
     * separate application instances) runs {@code threads} threads that append the same {@code keys}
     * keys to session {@code same-keys}, each key with that thread's own text: every key must be stored
     * once, and every caller of a key gets the entries stored the first time.
     *
     * @param stores  instances over the same data (session {@code same-keys} empty)
     * @param threads threads per instance
     * @param keys    keys each thread appends
     * @return the log of session {@code same-keys} after the race, read through the first instance
     * @throws Exception what a thread threw, or a timeout
     */
    public static List<Entry> sameKeysRacing(List<? extends SessionStore> stores, int threads, int keys)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(stores.size() * threads);
        Map<String, List<Entry>> firstSeen = new ConcurrentHashMap<>();
        List<Throwable> mismatches = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int s = 0; s < stores.size(); s++) {
                SessionStore store = stores.get(s);
                for (int t = 0; t < threads; t++) {
                    String writer = s + "-" + t;
                    futures.add(pool.submit(() -> {
                        for (int k = 0; k < keys; k++) {
                            String key = "key-" + k;
                            List<Entry> got = store.append("same-keys", List.of(
                                    NewEntry.of(UserMessage.from(writer + ":" + k))), key);
                            List<Entry> first = firstSeen.putIfAbsent(key, got);
                            if (first != null && !first.equals(got)) {
                                mismatches.add(new AssertionError(key + ": " + got + " != " + first));
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(mismatches).isEmpty();
        List<Entry> log = stores.get(0).read("same-keys", 0, Integer.MAX_VALUE);
        assertThat(log).hasSize(keys);
        assertThat(log).extracting(e -> e.idempotencyKey().orElseThrow()).doesNotHaveDuplicates();
        return log;
    }

    /** Indices increase, no entry is there twice, each writer's entries in order. */
    private static void checkRaceRead(List<Entry> read) {
        assertThat(read).extracting(Entry::index).isSorted().doesNotHaveDuplicates();
        assertThat(read).extracting(Entry::id).doesNotHaveDuplicates();
        List<Entry> appended = read.stream().filter(e -> e.idempotencyKey().isPresent()).toList();
        assertThat(appended).extracting(e -> e.idempotencyKey().get()).doesNotHaveDuplicates();
        checkWriterOrder(read);
    }

    private static void checkWriterOrder(List<Entry> log) {
        Map<String, Integer> last = new HashMap<>();
        for (Entry e : log) {
            String[] parts = ((UserMessage) e.message()).singleText().split(":");
            int i = Integer.parseInt(parts[1]);
            Integer before = last.put(parts[0], i);
            assertThat(before == null || before < i).as("writer %s: %s after %s", parts[0], i, before).isTrue();
        }
    }

    /**
     * A store that forwards every call to {@code delegate}: extend it and override the one method a
     * test changes (a store that counts appends, loses a race, breaks one rule). Forwards the
     * LangChain4j {@code ChatMemoryStore} face and the capabilities too, so only what a subclass
     * overrides differs from the delegate; in particular {@code updateMessages} runs on the delegate,
     * so an overridden {@code append} does not see the appends it makes (a store that must see them
     * implements {@link SessionStore} itself and keeps its default methods).
     */
    public abstract static class ForwardingSessionStore implements SessionStore {

        /** The store every call goes to. */
        protected final SessionStore delegate;

        /**
         * A store that forwards to {@code delegate}.
         *
         * @param delegate the store every call goes to
         */
        protected ForwardingSessionStore(SessionStore delegate) {
            this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
        }

        @Override
        public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
            return delegate.append(sessionId, entries, idempotencyKey);
        }

        @Override
        public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
            return delegate.read(sessionId, fromIndex, maxCount);
        }

        @Override
        public List<Entry> readLast(String sessionId, int count) {
            return delegate.readLast(sessionId, count);
        }

        @Override
        public long nextIndex(String sessionId) {
            return delegate.nextIndex(sessionId);
        }

        @Override
        public SessionState state(String sessionId) {
            return delegate.state(sessionId);
        }

        @Override
        public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion,
                                                         SessionState newState) {
            return delegate.compareAndSetState(sessionId, expectedVersion, newState);
        }

        @Override
        public void replace(String sessionId, List<NewEntry> entries) {
            delegate.replace(sessionId, entries);
        }

        @Override
        public void trim(String sessionId, long beforeIndex) {
            delegate.trim(sessionId, beforeIndex);
        }

        @Override
        public List<String> sessions() {
            return delegate.sessions();
        }

        @Override
        public void delete(String sessionId) {
            delegate.delete(sessionId);
        }

        @Override
        public Optional<Path> derivedDataDirectory(String kind) {
            return delegate.derivedDataDirectory(kind);
        }

        @Override
        public String processId() {
            return delegate.processId();
        }

        @Override
        public boolean processEnded(String processId) {
            return delegate.processEnded(processId);
        }

        @Override
        public List<ChatMessage> getMessages(Object memoryId) {
            return delegate.getMessages(memoryId);
        }

        @Override
        public void updateMessages(Object memoryId, List<ChatMessage> messages) {
            delegate.updateMessages(memoryId, messages);
        }

        @Override
        public void deleteMessages(Object memoryId) {
            delegate.deleteMessages(memoryId);
        }
    }
}
