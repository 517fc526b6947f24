package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.testkit.OpenAiTestServer.Reply;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Two requests on one session, the second started while the first is held at one step of its tool
 * round (barriers, not sleeps), and what must hold afterwards under each {@link ConcurrentSends}
 * setting. Request A asks {@link Shop#ASK_MATCHA} (one tool round: the matcha stock check), request B
 * asks {@link Shop#ASK_SENCHA} (the sencha stock check).
 */
final class TwoRequests {

    static final String A = Shop.ASK_MATCHA;
    static final String B = Shop.ASK_SENCHA;
    static final String A_ITEM = "matcha";
    static final String B_ITEM = "sencha";

    private TwoRequests() {
    }

    /** The setting under test, named for reports. */
    enum Setting {
        QUEUE(ConcurrentSends.queue()), REFUSE(ConcurrentSends.refuse()), BRANCH(ConcurrentSends.branch());

        final ConcurrentSends sends;

        Setting(ConcurrentSends sends) {
            this.sends = sends;
        }

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Where request A is held when request B starts: each step of a tool round. */
    enum Step {
        /** A's question is stored and its first model call is in flight (the server holds the answer). */
        FIRST_CALL("A's first model call in flight"),
        /** A's tool call is stored and the tool runs (the tool holds). */
        TOOL("A's tool running"),
        /** A's tool result is stored and its follow-up model call is in flight (the server holds the answer). */
        FOLLOW_UP("A's follow-up model call in flight");

        private final String label;

        Step(String label) {
            this.label = label;
        }

        /** True if the server holds {@code request} at this step. */
        boolean holds(Request request) {
            String last = request.lastLine();
            return switch (this) {
                case FIRST_CALL -> last.equals("user: " + A);
                case FOLLOW_UP -> last.startsWith("tool ") && last.contains(A_ITEM + ": 12 packs");
                case TOOL -> false;
            };
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /**
     * Holds request A at a step: a model answer at the server, or the tool ({@link Shop.Tools#heldItem}).
     * Armed once, holds once.
     */
    static final class Hold {
        private final Step step;
        private final Shop.Tools tools;
        private final AtomicBoolean armed = new AtomicBoolean();
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        Hold(Step step, Shop.Tools tools) {
            this.step = step;
            this.tools = tools;
        }

        /** The server's answers: {@code brain}'s, with the held one waiting for {@link #release()}. */
        Function<Request, Reply> around(Function<Request, Reply> brain) {
            return request -> {
                if (step.holds(request) && armed.compareAndSet(true, false)) {
                    reached.countDown();
                    await(release, HELD_AT_MOST, "the test never released the held answer");
                }
                return brain.apply(request);
            };
        }

        /** From now on the step holds. */
        void arm() {
            if (step == Step.TOOL) {
                tools.heldItem = A_ITEM;
            } else {
                armed.set(true);
            }
        }

        /** Waits until request A is held. */
        void awaitReached() {
            await(step == Step.TOOL ? tools.held : reached, "request A never reached " + step);
        }

        void release() {
            release.countDown();
            tools.release.countDown();
        }
    }

    /**
     * The pair on a warmed-up session: the server answers through the hold, the assistant runs
     * {@code strategy} under {@code setting} on the test's store, the warm-up has run, and what the
     * session held then is kept to compare with; the hold is armed.
     */
    record Pair(Hold hold, Shop.Assistant assistant, List<io.github.memorypack.core.Entry> before,
                java.util.Optional<io.github.memorypack.core.Summary> summary, int firstRequest, int checksBefore) {

        static Pair warmedUp(ShopTestBase test, Strategy strategy, Setting setting, Step step) {
            Hold hold = new Hold(step, test.tools);
            test.server.answerWith(hold.around(new Shop.Brain()));
            Shop.Assistant assistant = Shop.assistant(test.server, strategy.provider(test.store, setting.sends),
                    test.tools).build();
            Shop.warmUp(assistant, ShopTestBase.SESSION);
            Pair pair = new Pair(hold, assistant, test.log(), test.store.state(ShopTestBase.SESSION).summary(),
                    test.server.requestCount() + 1, test.tools.stockItems.size());
            hold.arm();
            return pair;
        }

        /** The stock checks since the warm-up. */
        List<String> checks(Shop.Tools tools) {
            return new ArrayList<>(tools.stockItems.subList(checksBefore, tools.stockItems.size()));
        }
    }

    /** Waits until {@code thread} waits in a memory's send gate (a queued request), or has ended. */
    static void awaitQueued(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!thread.isAlive() || inGate(thread)) {
                return;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        throw new AssertionError("request B neither waited in the send gate nor ended within 10 s");
    }

    /** True if {@code thread} waits in {@code SendGate.pause}, where a queued request waits. */
    static boolean inGate(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals("io.github.memorypack.core.SendGate") && frame.getMethodName().equals("pause")) {
                return true;
            }
        }
        return false;
    }

    /**
     * What holds of the requests the server got for the two requests, under every setting: each
     * request is A's or B's by its last user message, and nothing after it belongs to the other
     * request; A made two model calls and B two (none when refused); each tool ran once per request;
     * no running tool call was shown as interrupted; every tool call is followed by its results.
     */
    static void assertEachRequestKeepsToItsOwnTurn(List<Request> requests, List<String> toolItems, Setting setting) {
        List<Request> ofA = new ArrayList<>();
        List<Request> ofB = new ArrayList<>();
        for (Request request : requests) {
            List<String> history = request.history();
            int lastUser = lastUser(history);
            assertThat(lastUser).as("a user message in %s", request).isNotNegative();
            String question = history.get(lastUser).substring("user: ".length());
            assertThat(question).as("the question %s ends with", request).isIn(A, B);
            String other = question.equals(A) ? B_ITEM : A_ITEM;
            assertThat(history.subList(lastUser, history.size())).as("%s after its question", request)
                    .noneMatch(line -> line.contains(other) || line.contains(question.equals(A) ? B : A));
            (question.equals(A) ? ofA : ofB).add(request);
            assertThat(history).as("%s", request).noneMatch(line -> line.contains("interrupted"));
        }
        assertThat(ofA).as("model calls of request A (its question, then its tool result)").hasSize(2);
        assertThat(ofB).as("model calls of request B").hasSize(setting == Setting.REFUSE ? 0 : 2);
        assertThat(toolItems).as("stock checks during the two requests")
                .containsExactlyInAnyOrderElementsOf(setting == Setting.REFUSE ? List.of(A_ITEM) : List.of(A_ITEM, B_ITEM));
        PathAssertions.assertToolCallsAnswered(requests);
    }

    /** The requests whose last user message is {@code question}, in arrival order. */
    static List<Request> of(List<Request> requests, String question) {
        return requests.stream().filter(r -> {
            int lastUser = lastUser(r.history());
            return lastUser >= 0 && r.history().get(lastUser).equals("user: " + question);
        }).toList();
    }

    static int lastUser(List<String> history) {
        for (int i = history.size() - 1; i >= 0; i--) {
            if (history.get(i).startsWith("user: ")) {
                return i;
            }
        }
        return -1;
    }

    static void await(CountDownLatch latch, String failure) {
        await(latch, 10, failure);
    }

    /**
     * How long a held step waits for the test to release it, in seconds: longer than any wait of the
     * test while it holds (a second JVM's start on a loaded machine takes more than 10 s), so a hold only
     * times out when a test never releases it.
     */
    static final int HELD_AT_MOST = 120;

    static void await(CountDownLatch latch, int seconds, String failure) {
        try {
            if (!latch.await(seconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException(failure);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(failure, e);
        }
    }
}
