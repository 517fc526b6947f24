package io.github.memorypack.memorymd;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What this process knows about one session of a {@link MemoryMdSessionStore}: the entries of its
 * files, their stamps and where the next append goes, plus what was appended while persistence was
 * off. Guarded by its monitor and the session locks.
 */
final class CachedSession {
    final Path dir;
    final Path md;
    final Path stateFile;
    final Path sidecar;
    final List<Entry> entries = new ArrayList<>();
    final Map<String, List<Entry>> byKey = new HashMap<>();
    final List<String> warnings = new ArrayList<>();
    /** Appended while persistence was off: in memory only. */
    final List<Entry> overlay = new ArrayList<>();
    SessionState overlayState;
    FileLayer.FileStamp mdStamp;
    FileLayer.FileStamp stateStamp;
    SessionState fileState = SessionState.EMPTY;
    long fileNext;
    int format = MemoryMdFormat.FORMAT;
    long validEnd;
    String separator = "";
    long tornAt = -1;

    CachedSession(Path dir) {
        this.dir = dir;
        this.md = dir.resolve(MemoryMdSessionStore.MEMORY_MD);
        this.stateFile = dir.resolve(MemoryMdSessionStore.STATE_JSON);
        this.sidecar = dir.resolve(MemoryMdFormat.SIDECAR);
    }

    long nextIndex() {
        long next = fileNext;
        if (!overlay.isEmpty()) {
            next = Math.max(next, overlay.get(overlay.size() - 1).index() + 1);
        }
        return next;
    }

    SessionState state() {
        return overlayState != null ? overlayState : fileState;
    }

    List<Entry> all() {
        if (overlay.isEmpty()) {
            return entries;
        }
        List<Entry> all = new ArrayList<>(entries);
        all.addAll(overlay);
        all.sort((a, b) -> Long.compare(a.index(), b.index()));
        return all;
    }

    void clearFile() {
        entries.clear();
        byKey.clear();
        warnings.clear();
        for (Entry e : overlay) {
            e.idempotencyKey().ifPresent(k -> byKey.put(k, List.of(e)));
        }
        mdStamp = null;
        fileNext = 0;
        format = MemoryMdFormat.FORMAT;
        validEnd = 0;
        separator = "";
        tornAt = -1;
    }

    void noFiles() {
        clearFile();
        fileState = SessionState.EMPTY;
        stateStamp = null;
    }

    void reset() {
        overlay.clear();
        overlayState = null;
        noFiles();
    }
}
