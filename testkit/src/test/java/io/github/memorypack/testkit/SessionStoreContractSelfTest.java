package io.github.memorypack.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The contract must catch broken stores: each nested store breaks one rule, and the contract run on
 * it must fail exactly where that rule is checked. (Surefire skips nested classes, so the broken
 * stores run only from here.)
 */
class SessionStoreContractSelfTest {

    @Test
    void should_fail_idempotency_tests_when_store_ignores_keys() {
        assertThat(failuresOf(IgnoresKeys.class)).contains(
                "should_store_once_and_return_first_entries_when_idempotency_key_repeats",
                "should_accept_key_when_it_has_the_maximum_length",
                "should_reject_key_before_any_io_when_key_is_blank_or_too_long",
                "should_match_a_simple_model_when_random_operations_run");
    }

    @Test
    void should_fail_conflict_test_when_compare_and_set_ignores_the_version() {
        assertThat(failuresOf(BlindCompareAndSet.class)).contains(
                "should_conflict_and_change_nothing_when_version_is_stale",
                "should_not_create_session_when_compare_and_set_fails_on_unknown_session",
                "should_match_a_simple_model_when_random_operations_run");
    }

    @Test
    void should_fail_update_messages_test_when_every_update_replaces() {
        // it also bypasses the default updateMessages, so a hashed memory id is never kept to be listed back,
        // a replace without a system message leaves the state's one in the conversation, and null is not refused
        assertThat(failuresOf(UpdateAlwaysReplaces.class))
                .containsExactly("should_append_suffix_and_keep_entry_ids_when_update_messages_extends_stored_list",
                        "should_keep_any_memory_id_apart_and_list_it_back_when_used_through_chat_memory_store",
                        "should_list_memory_ids_as_the_application_gave_them_when_sessions_were_written_under_any_id",
                        "should_reject_and_write_nothing_when_update_messages_gets_null_or_a_list_holding_null",
                        "should_replace_log_when_update_messages_is_not_an_extension");
    }

    @Test
    void should_fail_round_trip_tests_when_a_restart_loses_data() {
        assertThat(failuresOf(ForgetsOnRestart.class)).contains(
                "should_round_trip_every_message_type_exactly_when_store_is_reopened",
                "should_round_trip_system_message_and_summary_when_state_is_reopened",
                "should_keep_token_counts_and_metadata_when_round_tripped",
                "should_assign_consecutive_indices_when_appending_batches",
                "should_match_a_simple_model_when_random_operations_run");
    }

    @Test
    void should_fail_token_and_metadata_test_when_store_drops_them() {
        assertThat(failuresOf(DropsTokensAndMetadata.class))
                .containsExactly("should_keep_token_counts_and_metadata_when_round_tripped",
                        "should_store_every_key_once_and_apart_when_keys_differ_only_in_awkward_characters");
    }

    @Test
    void should_fail_bad_id_test_when_store_sanitizes_ids_instead_of_rejecting_them() {
        // and the encoded session ids it "cleans" ('~' becomes '_') no longer give back their memory ids
        assertThat(failuresOf(SanitizesIds.class))
                .containsExactly("should_list_memory_ids_as_the_application_gave_them_when_sessions_were_written_under_any_id",
                        "should_reject_id_and_touch_nothing_when_session_id_is_invalid");
    }

    @Test
    void should_fail_concurrent_append_test_when_appends_rewrite_the_whole_list() {
        assertThat(failuresOf(RewritesWholeList.class))
                .contains("should_keep_every_entry_and_each_writer_order_when_writers_append_concurrently");
    }

    /** Runs the contract on {@code contract} and returns the names of the failed test methods. */
    private static Set<String> failuresOf(Class<? extends SessionStoreContract> contract) {
        Set<String> failed = new ConcurrentSkipListSet<>();
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    id.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                            .ifPresent(source -> failed.add(source.getMethodName()));
                }
            }
        };
        LauncherFactory.create().execute(
                LauncherDiscoveryRequestBuilder.request().selectors(selectClass(contract)).build(), listener);
        return failed;
    }

    static class IgnoresKeys extends SessionStoreContract {
        @Override
        protected SessionStore createStore(Clock clock) {
            return new ForwardingSessionStore(InMemorySessionStore.create(clock)) {
                @Override
                public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
                    return delegate.append(sessionId, entries, null);
                }
            };
        }
    }

    static class BlindCompareAndSet extends SessionStoreContract {
        @Override
        protected SessionStore createStore(Clock clock) {
            return new ForwardingSessionStore(InMemorySessionStore.create(clock)) {
                @Override
                public Optional<SessionState> compareAndSetState(String id, long expectedVersion, SessionState s) {
                    return delegate.compareAndSetState(id, delegate.state(id).version(), s);
                }
            };
        }

        @Override
        protected int casIncrementsPerWriter() {
            return 5; // lost updates are likely but not certain; the deterministic tests are asserted
        }
    }

    static class UpdateAlwaysReplaces extends SessionStoreContract {
        @Override
        protected SessionStore createStore(Clock clock) {
            return new ForwardingSessionStore(InMemorySessionStore.create(clock)) {
                @Override
                public void updateMessages(Object memoryId, List<ChatMessage> messages) {
                    delegate.replace(SessionIds.of(memoryId),
                            messages.stream().map(NewEntry::of).collect(Collectors.toList()));
                }
            };
        }
    }

    static class ForgetsOnRestart extends SessionStoreContract {
        @Override
        protected SessionStore createStore(Clock clock) {
            return InMemorySessionStore.create(clock);
        }

        @Override
        protected SessionStore reopen(SessionStore store) {
            return InMemorySessionStore.create(clock());
        }
    }

    static class DropsTokensAndMetadata extends SessionStoreContract {
        @Override
        protected SessionStore createStore(Clock clock) {
            return new ForwardingSessionStore(InMemorySessionStore.create(clock)) {
                @Override
                public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
                    List<NewEntry> bare = entries.stream().map(e -> NewEntry.of(e.message()))
                            .collect(Collectors.toList());
                    return delegate.append(sessionId, bare, idempotencyKey);
                }
            };
        }
    }

    static class SanitizesIds extends SessionStoreContract {
        @Override
        protected SessionStore createStore(Clock clock) {
            InMemorySessionStore inner = InMemorySessionStore.create(clock);
            return new ForwardingSessionStore(inner) {
                // the classic bug: "clean" the id instead of rejecting it, so "a/b" and "a_b" share storage
                private String clean(String id) {
                    String cleaned = id == null ? "null" : id.replaceAll("[^A-Za-z0-9._-]", "_");
                    return cleaned.isEmpty() || cleaned.length() > 128 || cleaned.matches("\\.+") ? "x" : cleaned;
                }

                @Override
                public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
                    return delegate.append(clean(sessionId), entries, idempotencyKey);
                }

                @Override
                public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
                    return delegate.read(clean(sessionId), fromIndex, maxCount);
                }
            };
        }
    }

    static class RewritesWholeList extends SessionStoreContract {
        @Override
        protected SessionStore createStore(Clock clock) {
            return new ForwardingSessionStore(InMemorySessionStore.create(clock)) {
                // what most chat memory stores do: read everything, add, write everything back
                @Override
                public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
                    List<NewEntry> all = new ArrayList<>();
                    for (Entry e : delegate.read(sessionId, 0, Integer.MAX_VALUE)) {
                        all.add(NewEntry.of(e.message(), e.tokenCount(), e.metadata()));
                    }
                    all.addAll(entries);
                    delegate.replace(sessionId, all);
                    List<Entry> stored = delegate.readLast(sessionId, entries.size());
                    return entries.isEmpty() ? List.of() : stored;
                }
            };
        }

        @Override
        protected int appendsPerWriter() {
            return 50;
        }
    }
}
