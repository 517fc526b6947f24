package io.github.memorypack.benchmarks.file;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.memorymd.MemoryMdSessionStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 * One chat turn on the two file-backed stores, as a memory drives a store per request: append the
 * user message, read the newest 20 entries (the view), append the AI reply — each append forced
 * to the device before it returns. {@code file} is {@link FileSessionStore}, {@code memory-md}
 * {@link MemoryMdSessionStore} (default durability: every append forced). The session starts with
 * 200 messages and is trimmed back between iterations (outside the measurement), so the measured
 * state stays the same.
 *
 * <p>{@code folder}: {@code shm} puts the store on tmpfs ({@code /dev/shm}), where a force costs
 * nothing, so the figure is the store's own work (locking, encoding, cache checks, system calls);
 * {@code tmp} puts it on the temp folder's file system, where each force goes to the device.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@State(Scope.Benchmark)
public class StoreTurnBenchmark {

    static final String SESSION = "bench-session";
    static final int STORED = 200;
    static final int VIEW = 20;

    @Param({"file", "memory-md"})
    public String store;

    @Param({"shm"})
    public String folder;

    private Path directory;
    private SessionStore sessions;
    private long turn;
    private final String prose = "The quick brown fox jumps over the lazy dog, then checks the weather in Lisbon. "
            .repeat(3);

    @Setup(Level.Trial)
    public void open() throws IOException {
        Path parent = folder.equals("shm") ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        directory = Files.createTempDirectory(parent, "store-turn-benchmark");
        sessions = store.equals("file") ? FileSessionStore.of(directory) : MemoryMdSessionStore.of(directory);
        List<NewEntry> batch = new ArrayList<>();
        for (int i = 0; i < STORED; i++) {
            batch.add(NewEntry.of(i % 2 == 0 ? UserMessage.from("question " + i + " " + prose)
                    : AiMessage.from("answer " + i + " " + prose)));
        }
        sessions.append(SESSION, batch);
    }

    @Setup(Level.Iteration)
    public void trimBack() {
        long next = sessions.nextIndex(SESSION);
        sessions.trim(SESSION, next - STORED);
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** One turn: user message appended, view read, AI reply appended. */
    @Benchmark
    public List<Entry> turn() {
        long n = turn++;
        sessions.append(SESSION, List.of(NewEntry.of(UserMessage.from("question " + n + " " + prose))));
        List<Entry> view = sessions.readLast(SESSION, VIEW);
        sessions.append(SESSION, List.of(NewEntry.of(AiMessage.from("answer " + n + " " + prose))));
        if (view.size() != VIEW) {
            throw new UncheckedIOException(new IOException("view has " + view.size() + " entries"));
        }
        return view;
    }
}
