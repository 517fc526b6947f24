package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionStore.ProcessLease}'s life cycle over the simplest backend a store author could write: leases in
 * a map, each with its expiry (what a server's TTL does). The Redis and JDBC stores run the same rules on real
 * servers (their ProcessesTests).
 */
class ProcessLeaseTest {

    private static final Duration TTL = Duration.ofSeconds(1);

    /** Leases that expire {@link #TTL} after their last write, shared by every "process" of a test. */
    static final class Server {
        final Map<String, Long> expiry = new ConcurrentHashMap<>();
        final AtomicBoolean down = new AtomicBoolean();

        boolean alive(String id) {
            Long until = expiry.get(id);
            if (until != null && until - System.nanoTime() <= 0) {
                expiry.remove(id, until);
                return false;
            }
            return until != null;
        }

        void check() {
            if (down.get()) {
                throw new IllegalStateException("server down");
            }
        }
    }

    static final class MapLease extends SessionStore.ProcessLease {
        private final Server server;
        volatile boolean renewing = true;

        MapLease(Object owner, Server server) {
            super(owner, TTL);
            this.server = server;
        }

        @Override
        protected boolean create(String id, boolean quick) {
            server.check();
            return server.expiry.putIfAbsent(id, System.nanoTime() + TTL.toNanos()) == null;
        }

        @Override
        protected boolean renew(String id, boolean quick) {
            server.check();
            if (!renewing) {
                throw new IllegalStateException("paused"); // a renewal that does not get through
            }
            if (!server.alive(id)) {
                return false; // lapsed: never created again
            }
            server.expiry.put(id, System.nanoTime() + TTL.toNanos());
            return true;
        }

        @Override
        protected boolean lapsed(String id) {
            server.check();
            return !server.alive(id);
        }

        @Override
        protected String where(String id) {
            return "map lease " + id;
        }
    }

    private final Server server = new Server();
    private final Object owner = new Object();

    @Test
    void should_keep_a_live_process_alive_and_never_report_it_ended_when_its_lease_is_renewed() throws InterruptedException {
        MapLease mine = new MapLease(owner, server);
        MapLease other = new MapLease(new Object(), server);

        String id = mine.id();
        Thread.sleep(TTL.toMillis() * 3); // three lifetimes: only the renewals keep it

        assertThat(id).matches("[0-9a-f]{16}");
        assertThat(SessionStore.ProcessLease.isId(id)).isTrue();
        assertThat(mine.id()).isEqualTo(id);
        assertThat(mine.ended(id)).isFalse();
        assertThat(other.ended(id)).isFalse();
        mine.close();
        other.close();
    }

    @Test
    void should_report_a_process_ended_for_good_when_its_lease_lapsed() throws InterruptedException {
        MapLease dead = new MapLease(owner, server);
        MapLease judge = new MapLease(new Object(), server);
        String id = dead.id();

        dead.close(); // no more renewals: what a killed process leaves
        Thread.sleep(TTL.toMillis() * 2);

        assertThat(judge.ended(id)).isTrue();
        server.expiry.put(id, Long.MAX_VALUE); // even if the lease came back, it stays ended
        assertThat(judge.ended(id)).isTrue();
        assertThat(dead.id()).isNull(); // a closed lease names no process
        judge.close();
    }

    @Test
    void should_take_a_new_id_when_its_own_lease_lapsed_while_it_could_not_renew() throws InterruptedException {
        MapLease mine = new MapLease(owner, server);
        MapLease judge = new MapLease(new Object(), server);
        String first = mine.id();

        mine.renewing = false; // renewals fail (a pause, an outage) for longer than the lifetime
        Thread.sleep(TTL.toMillis() * 2);
        assertThat(judge.ended(first)).isTrue(); // the others may already have judged its turns abandoned
        mine.renewing = true;
        Thread.sleep(TTL.toMillis()); // the renewer finds its lease gone and replaces it

        String second = mine.id();
        assertThat(second).isNotNull().isNotEqualTo(first);
        assertThat(judge.ended(second)).isFalse();
        assertThat(judge.ended(first)).isTrue();
        mine.close();
        judge.close();
    }

    @Test
    void should_tell_nothing_when_the_server_cannot_be_reached_or_the_id_is_none_of_a_lease() {
        MapLease mine = new MapLease(owner, server);
        String id = mine.id();
        MapLease other = new MapLease(new Object(), server);

        server.down.set(true);

        assertThat(other.ended(id)).isFalse(); // cannot tell
        assertThat(new MapLease(new Object(), server).id()).isNull(); // no lease: turns end by the timeout only
        assertThat(other.ended("../" + id)).isFalse();
        assertThat(other.ended(null)).isFalse();
        assertThat(mine.ended(id)).isFalse(); // never its own
        mine.close();
        other.close();
    }

    @Test
    void should_refuse_a_time_to_live_that_is_not_positive() {
        for (Duration ttl : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1)}) {
            assertThatThrownBy(() -> new SessionStore.ProcessLease(owner, ttl) {
                @Override
                protected boolean create(String id, boolean quick) {
                    return true;
                }

                @Override
                protected boolean renew(String id, boolean quick) {
                    return true;
                }

                @Override
                protected boolean lapsed(String id) {
                    return false;
                }

                @Override
                protected String where(String id) {
                    return "";
                }
            }).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
