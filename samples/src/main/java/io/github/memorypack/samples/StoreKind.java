package io.github.memorypack.samples;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.memorymd.MemoryMdSessionStore;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Supplier;

/** The session stores the samples can run on. */
public enum StoreKind {
    /** {@link InMemorySessionStore}: nothing survives the process. */
    MEMORY("memory"),
    /** {@link FileSessionStore}: JSON-lines logs in a folder. */
    FILE("file"),
    /** {@link MemoryMdSessionStore}: one readable {@code MEMORY.md} per session. */
    MEMORY_MD("memory-md");

    private final String label;

    StoreKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /**
     * Opens stores on {@code directory}: every call of the supplier opens it again, as a restarted
     * process would, and sees what earlier ones wrote. For {@link #MEMORY} every call returns the
     * same instance (there is nothing to reopen), and {@code directory} is not used.
     */
    public Supplier<SessionStore> opener(Path directory) {
        return switch (this) {
            case MEMORY -> {
                SessionStore store = InMemorySessionStore.create();
                yield () -> store;
            }
            case FILE -> () -> FileSessionStore.of(directory);
            case MEMORY_MD -> () -> MemoryMdSessionStore.of(directory);
        };
    }

    /** Whether what it holds survives a restart. */
    public boolean persistent() {
        return this != MEMORY;
    }

    /**
     * The store kind with this label.
     *
     * @throws IllegalArgumentException for an unknown label
     */
    public static StoreKind of(String label) {
        String wanted = label.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(s -> s.label.equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown store '" + label + "', expected one of "
                        + String.join(",", Arrays.stream(values()).map(StoreKind::label).toList())));
    }
}
