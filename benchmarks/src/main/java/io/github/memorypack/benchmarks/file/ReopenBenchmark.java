package io.github.memorypack.benchmarks.file;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.file.FileSessionStore;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the first request of a restarted application costs on a long file-store session: a new
 * {@link FileSessionStore} on the folder (nothing cached) and its first {@code readLast(20)}, on
 * sessions of 1,000, 100,000 and 1,000,000 messages. The store reads a session from the end of its
 * log, so the cost should not depend on the session's length (target: flat within 2× from the
 * smallest to the largest, and under 50 ms at 1,000,000).
 *
 * <p>The log is written directly in the set-up, in the store's format 2 (one checksummed record line
 * per entry, as {@code append} writes it for one-entry appends), not through a million fsynced
 * appends; the set-up then checks through the store that the last entries read back. User and
 * assistant messages alternate, 60 to 240 characters of prose each (about 190 bytes a line, like the
 * 186 MB million-message log of issue 11). The file is in the OS page cache, so this measures the
 * store's own work, not the disk. {@link #reopenAndReadAll} is the baseline of the same run: reading
 * the whole log, as every reopen did before.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
public class ReopenBenchmark {

    static final String SESSION = "long";
    static final int LAST = 20;

    @State(Scope.Benchmark)
    public static class Session {

        @Param({"1000", "100000", "1000000"})
        public int messages;

        Path folder;

        @Setup(Level.Trial)
        public void write() throws IOException {
            folder = Files.createTempDirectory("reopen-benchmark");
            writeLog(folder.resolve(SESSION + ".jsonl"), messages);
            List<Entry> last = FileSessionStore.of(folder).readLast(SESSION, LAST);
            if (last.size() != Math.min(LAST, messages) || last.get(last.size() - 1).index() != messages - 1) {
                throw new IllegalStateException("the generated log does not read back: " + last);
            }
        }

        @TearDown(Level.Trial)
        public void delete() throws IOException {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    @Benchmark
    public List<Entry> reopenAndReadLast20(Session session) {
        return FileSessionStore.of(session.folder).readLast(SESSION, LAST);
    }

    /**
     * The baseline: a new store reading the whole log, which is what every reopen cost before the store
     * read from the tail (it parsed the whole log to serve {@code readLast(20)}). Few single shots: one
     * call takes seconds at a million messages.
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 2)
    @Measurement(iterations = 5)
    public List<Entry> reopenAndReadAll(Session session) {
        return FileSessionStore.of(session.folder).read(SESSION, 0, Integer.MAX_VALUE);
    }

    /** Writes {@code count} one-entry records: {@code ~<length hex8> <crc32c hex8> <EntryCodec JSON>\n}. */
    static void writeLog(Path log, int count) throws IOException {
        Random random = new Random(42);
        String[] words = ("the a of to and in that it is for on with as was at by this be from or have an they which"
                + " one you were all we can her has there been if more when will would who so no order table window"
                + " memory session answer question tea coffee Oslo weather tomorrow booking flight 42 2026 invoice")
                .split(" ");
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(log), 1 << 20)) {
            for (int i = 0; i < count; i++) {
                StringBuilder text = new StringBuilder();
                int length = 60 + random.nextInt(180);
                while (text.length() < length) {
                    text.append(words[random.nextInt(words.length)]).append(' ');
                }
                ChatMessage message = i % 2 == 0 ? UserMessage.from(text.toString().trim())
                        : AiMessage.from(text.toString().trim());
                Entry entry = new Entry(i, new java.util.UUID(random.nextLong(), random.nextLong()).toString(),
                        start.plusSeconds(i), Entry.UNKNOWN_TOKENS, message, Map.of(), null);
                String json = EntryCodec.encodeEntry(entry);
                byte[] payload = json.getBytes(StandardCharsets.UTF_8);
                String header = String.format("~%08x %s ", payload.length, EntryCodec.checksum(json));
                out.write(header.getBytes(StandardCharsets.US_ASCII));
                out.write(payload);
                out.write('\n');
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
