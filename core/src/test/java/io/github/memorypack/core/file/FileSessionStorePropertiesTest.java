package io.github.memorypack.core.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.file.FileSessionStore.Recovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Random operation sequences, with torn tails (what a crash mid-append leaves) written into the log
 * between them, against {@link InMemorySessionStore} as the model: a torn tail never changes what the
 * store shows, and the next write that touches the log sets it aside and reports it exactly once.
 */
class FileSessionStorePropertiesTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-05-06T07:08:09Z"), ZoneOffset.UTC);
    private static final String S = "s";

    enum Kind { APPEND, TRIM, REPLACE, COMPARE_AND_SET, DELETE, REOPEN, TEAR }

    static final class Op {
        final Kind kind;
        final int a;
        final int b;

        Op(Kind kind, int a, int b) {
            this.kind = kind;
            this.a = a;
            this.b = b;
        }

        @Override
        public String toString() {
            return kind + "(" + a + "," + b + ")";
        }
    }

    @Provide
    Arbitrary<Op> operations() {
        return Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(0, 3)).as(Op::new);
    }

    @Property(tries = 20)
    void should_match_the_in_memory_model_when_torn_tails_interrupt_random_operations(
            @ForAll @Size(min = 1, max = 15) List<@net.jqwik.api.From("operations") Op> ops) throws IOException {
        Path folder = Files.createTempDirectory("file-store-property");
        try {
            List<Recovery> recoveries = new ArrayList<>();
            SessionStore model = InMemorySessionStore.create(CLOCK);
            FileSessionStore store = open(folder, recoveries);
            int tears = 0;
            boolean unrepaired = false; // a crash happens in a write, and every write repairs first: tails never stack
            int counter = 0;
            for (Op op : ops) {
                if (unrepaired && (op.kind == Kind.APPEND || op.kind == Kind.TRIM || op.kind == Kind.REPLACE)) {
                    tears++;
                    unrepaired = false;
                }
                switch (op.kind) {
                    case APPEND: {
                        // keys only on single-entry appends: what a partly trimmed keyed append remembers is unspecified
                        String key = op.b == 0 ? null : "k" + op.b;
                        List<NewEntry> batch = new ArrayList<>();
                        for (int i = key == null ? op.a % 3 : 0; i >= 0; i--) {
                            batch.add(NewEntry.of(UserMessage.from("t" + counter++), op.a));
                        }
                        assertSame(store.append(S, batch, key), model.append(S, batch, key), ops);
                        break;
                    }
                    case TRIM:
                        store.trim(S, model.nextIndex(S) - op.a);
                        model.trim(S, model.nextIndex(S) - op.a);
                        break;
                    case REPLACE: {
                        List<NewEntry> batch = new ArrayList<>();
                        for (int i = 0; i < op.a % 3; i++) {
                            batch.add(NewEntry.of(UserMessage.from("t" + counter++)));
                        }
                        store.replace(S, batch);
                        model.replace(S, batch);
                        break;
                    }
                    case COMPARE_AND_SET: {
                        long expected = model.state(S).version() + op.b % 2;
                        SessionState next = SessionState.EMPTY.withAttributes(Map.of("n", String.valueOf(op.a)));
                        assertThat(store.compareAndSetState(S, expected, next))
                                .as("%s", ops).isEqualTo(model.compareAndSetState(S, expected, next));
                        break;
                    }
                    case DELETE:
                        store.delete(S);
                        model.delete(S);
                        unrepaired = false; // deleted with the log
                        break;
                    case REOPEN:
                        store = open(folder, recoveries);
                        break;
                    case TEAR:
                        if (!unrepaired && tear(folder.resolve(S + ".jsonl"), op.a % 3, model.nextIndex(S))) {
                            unrepaired = true;
                        }
                        break;
                    default:
                        throw new AssertionError(op);
                }
                assertSame(store.read(S, 0, Integer.MAX_VALUE), model.read(S, 0, Integer.MAX_VALUE), ops);
                assertThat(store.nextIndex(S)).as("%s", ops).isEqualTo(model.nextIndex(S));
                assertThat(store.state(S)).as("%s", ops).isEqualTo(model.state(S));
                assertThat(store.sessions()).as("%s", ops).isEqualTo(model.sessions());
            }
            assertThat(recoveries).as("%s", ops).hasSize(tears);
            FileSessionStore last = open(folder, recoveries);
            assertSame(last.read(S, 0, Integer.MAX_VALUE), model.read(S, 0, Integer.MAX_VALUE), ops);
            List<NewEntry> after = List.of(NewEntry.of(UserMessage.from("after")));
            assertSame(last.append(S, after), model.append(S, after), ops);
            assertThat(recoveries).as("%s", ops).hasSize(tears + (unrepaired ? 1 : 0));
            assertSame(open(folder, recoveries).read(S, 0, Integer.MAX_VALUE), model.read(S, 0, Integer.MAX_VALUE), ops);
        } finally {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                    Files.delete(p);
                }
            }
        }
    }

    private static FileSessionStore open(Path folder, List<Recovery> recoveries) {
        return FileSessionStore.builder().directory(folder).clock(CLOCK).onRecovery(recoveries::add).build();
    }

    /** Appends what a crash in the middle of an append leaves; false if there is no log to tear. */
    private static boolean tear(Path log, int kind, long nextIndex) throws IOException {
        if (!Files.exists(log)) {
            return false;
        }
        String entry = EntryCodec.encodeEntry(new Entry(nextIndex, "torn", CLOCK.instant(), 1,
                UserMessage.from("never acknowledged"), Map.of(), null));
        byte[] line = RecordLines.encode(entry);
        byte[] torn;
        if (kind == 0) {
            torn = Arrays.copyOf(line, line.length / 2); // cut inside a line
        } else if (kind == 1) {
            torn = new byte[4096]; // a zero-filled block, as some file systems leave it
        } else {
            torn = RecordLines.encode("{\"more\":1," + entry.substring(1)); // first line of a two-entry append
        }
        Files.write(log, torn, StandardOpenOption.APPEND);
        return true;
    }

    private static void assertSame(List<Entry> actual, List<Entry> expected, List<Op> ops) {
        assertThat(actual).as("%s", ops).hasSameSizeAs(expected);
        for (int i = 0; i < actual.size(); i++) {
            Entry a = actual.get(i);
            Entry e = expected.get(i);
            assertThat(List.of(a.index(), a.message(), a.timestamp(), a.tokenCount(), a.idempotencyKey()))
                    .as("%s", ops)
                    .isEqualTo(List.of(e.index(), e.message(), e.timestamp(), e.tokenCount(), e.idempotencyKey()));
        }
    }
}
