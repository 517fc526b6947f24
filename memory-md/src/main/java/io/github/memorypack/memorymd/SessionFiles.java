package io.github.memorypack.memorymd;

import dev.langchain4j.data.message.SystemMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.EntryCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The files of one session of a {@link MemoryMdSessionStore}, read and written under the locks the
 * store holds: bringing the {@link CachedSession} up to date with {@code MEMORY.md} and
 * {@code state.json}, appending a batch's blocks in one write (its system messages first, to
 * {@code system.jsonl}), rewriting the file (compaction, replace, migration from format 1), and the
 * never-colliding archive of what a rewrite or a torn tail leaves behind.
 */
final class SessionFiles {

    private static final DateTimeFormatter ARCHIVE_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

    private final FileLayer files;
    private final Clock clock;
    private final MemoryMdSessionStore.Durability durability;
    private final MemoryMdSessionStore.DamagePolicy damagePolicy;
    private final Consumer<String> warnings;
    private final long maxPreloadBytes;

    SessionFiles(FileLayer files, Clock clock, MemoryMdSessionStore.Durability durability,
                 MemoryMdSessionStore.DamagePolicy damagePolicy, Consumer<String> warnings, long maxPreloadBytes) {
        this.files = files;
        this.clock = clock;
        this.durability = durability;
        this.damagePolicy = damagePolicy;
        this.warnings = warnings;
        this.maxPreloadBytes = maxPreloadBytes;
    }

    /** Re-reads MEMORY.md and state.json if they changed since this process last saw them. */
    void refresh(CachedSession s) throws IOException {
        FileLayer.FileStamp stamp = files.stamp(s.md);
        if (stamp == null) {
            s.clearFile();
        } else if (!stamp.equals(s.mdStamp)) {
            load(s, stamp);
        }
        FileLayer.FileStamp stateStamp = files.stamp(s.stateFile);
        if (stateStamp == null) {
            s.fileState = SessionState.EMPTY;
            s.stateStamp = null;
        } else if (!stateStamp.equals(s.stateStamp)) {
            byte[] json = files.read(s.stateFile);
            try {
                s.fileState = EntryCodec.decodeState(new String(json, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw new StoreException(s.stateFile + " does not parse: " + e.getMessage(), e);
            }
            s.stateStamp = stateStamp;
        }
    }

    void load(CachedSession s, FileLayer.FileStamp stamp) throws IOException {
        if (stamp.size() > maxPreloadBytes) {
            throw new MemoryMdSessionStore.TooLargeException(s.md, stamp.size(), maxPreloadBytes, "is");
        }
        byte[] bytes = files.read(s.md);
        if (bytes == null || new String(bytes, StandardCharsets.UTF_8).isBlank()) {
            s.clearFile(); // an empty file (for example created by hand): the first write adds the header
            s.mdStamp = stamp;
            return;
        }
        MemoryMdFormat.Parsed parsed = MemoryMdFormat.parse(bytes, s.md.toString(),
                damagePolicy == MemoryMdSessionStore.DamagePolicy.SKIP_DAMAGED_BLOCKS);
        List<String> found = new ArrayList<>(parsed.warnings());
        Map<String, SystemMessage> sidecar = null;
        List<Entry> entries = new ArrayList<>(parsed.blocks().size());
        for (MemoryMdFormat.Block b : parsed.blocks()) {
            if (b.message() != null) {
                entries.add(b.toEntry(b.message()));
                continue;
            }
            if (sidecar == null) {
                sidecar = readSidecar(s);
            }
            SystemMessage system = sidecar.get(b.id());
            if (system != null) {
                entries.add(b.toEntry(system));
            } else if (damagePolicy == MemoryMdSessionStore.DamagePolicy.FAIL) {
                throw new MemoryMdFormatException(s.md.toString(), b.line(),
                        "system message " + b.id() + " is missing from " + MemoryMdFormat.SIDECAR);
            } else {
                found.add(s.md + ", line " + b.line() + ": system message " + b.id() + " is missing from "
                        + MemoryMdFormat.SIDECAR + " (block skipped)");
            }
        }
        if (parsed.tornAt() >= 0) {
            found.add(s.md + ", line " + parsed.tornLine() + ": incomplete block left by an interrupted write;"
                    + " ignored, and moved to " + MemoryMdSessionStore.ARCHIVE + "/torn_<timestamp>.md before the next write");
        }
        s.entries.clear();
        s.entries.addAll(entries);
        s.byKey.clear();
        for (Entry e : entries) {
            e.idempotencyKey().ifPresent(k -> s.byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(e));
        }
        s.byKey.replaceAll((k, v) -> Collections.unmodifiableList(v));
        s.fileNext = parsed.nextIndex();
        s.format = parsed.format();
        s.validEnd = parsed.validEnd();
        int end = (int) parsed.validEnd();
        // keep one blank line between blocks, also after a hand-written block or a missing final newline
        s.separator = end == 0 || !parsed.endsWithNewline() ? (end == 0 ? "" : "\n\n")
                : end >= 2 && bytes[end - 2] == '\n' ? "" : "\n";
        s.tornAt = parsed.tornAt();
        s.mdStamp = stamp;
        s.warnings.clear();
        s.warnings.addAll(found);
        for (String w : found) {
            warnings.accept(w);
        }
    }

    Map<String, SystemMessage> readSidecar(CachedSession s) throws IOException {
        Map<String, SystemMessage> map = new HashMap<>();
        byte[] bytes = files.read(s.sidecar);
        if (bytes == null) {
            return map;
        }
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            String json = unsealed(line);
            if (json == null) {
                // a line cut by a crash before its MEMORY.md block was written (no block refers to it), or
                // a damaged one: its block then reports the message as missing
                continue;
            }
            try {
                Entry e = EntryCodec.decodeEntry(json);
                if (e.message() instanceof SystemMessage) {
                    map.put(e.id(), (SystemMessage) e.message());
                }
            } catch (IllegalArgumentException e) {
                // not an entry: no block can refer to it
            }
        }
        return map;
    }

    /** A sidecar line: {@code ~<length hex8> <crc32c hex8> <EntryCodec JSON>} (or bare JSON, format 1). */
    static String sealedLine(Entry e) {
        String json = EntryCodec.encodeEntry(e);
        return "~" + String.format("%08x", json.getBytes(StandardCharsets.UTF_8).length) + " "
                + EntryCodec.checksum(json) + " " + json + "\n";
    }

    /** The JSON of a sidecar line whose length and checksum match (or of a format 1 line), else null. */
    static String unsealed(String line) {
        if (line.startsWith("{")) {
            return line;
        }
        if (line.length() < 19 || line.charAt(0) != '~' || line.charAt(9) != ' ' || line.charAt(18) != ' ') {
            return null;
        }
        String json = line.substring(19);
        boolean fits = line.substring(1, 9).equals(String.format("%08x", json.getBytes(StandardCharsets.UTF_8).length));
        return fits && line.substring(10, 18).equals(EntryCodec.checksum(json)) ? json : null;
    }

    /**
     * Appends the blocks of {@code stored} as one write (after the sidecar lines of its system
     * messages). A file of an older format is first rewritten in the current one (the old file goes to
     * the archive). An append that would take the file over {@link MemoryMdSessionStore.Builder#maxPreloadBytes} is refused
     * before anything is written.
     */
    void writeEntries(CachedSession s, List<Entry> stored) throws IOException {
        FileLayer.FileStamp stamp = files.stamp(s.md);
        boolean fresh = stamp == null || s.validEnd == 0;
        if (!fresh && s.format < MemoryMdFormat.FORMAT) {
            rewrite(s, new ArrayList<>(s.entries), s.fileNext); // migrate: checksummed blocks from now on
        }
        StringBuilder text = new StringBuilder();
        text.append(fresh ? "" : s.separator);
        for (int i = 0; i < stored.size(); i++) {
            text.append(MemoryMdFormat.block(stored.get(i), i == 0 ? stored.size() : 1, false));
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        String header = fresh ? MemoryMdFormat.header(clock.instant(), s.nextIndex()) : "";
        long size = (fresh ? header.getBytes(StandardCharsets.UTF_8).length : s.validEnd) + bytes.length;
        if (size > maxPreloadBytes) {
            throw new MemoryMdSessionStore.TooLargeException(s.md, size, maxPreloadBytes, "would be");
        }
        if (fresh) {
            files.writeAtomically(s.md, header.getBytes(StandardCharsets.UTF_8));
            load(s, files.stamp(s.md));
        }
        if (s.tornAt >= 0) {
            byte[] all = files.read(s.md);
            byte[] torn = Arrays.copyOfRange(all, (int) s.tornAt, all.length);
            archive(s, "torn", torn);
            s.tornAt = -1;
        }
        appendSidecar(s, stored);
        try {
            files.writeAt(s.md, s.validEnd, bytes, durability == MemoryMdSessionStore.Durability.SYNC);
        } catch (IOException e) {
            s.mdStamp = null; // re-read next time, whatever happened
            try {
                files.truncate(s.md, s.validEnd);
            } catch (IOException again) {
                e.addSuppressed(again); // the next read ignores the partial batch, the next append cuts it off
            }
            throw e;
        }
        s.validEnd += bytes.length;
        s.separator = "";
        s.fileNext = Math.max(s.fileNext, stored.get(stored.size() - 1).index() + 1);
        s.mdStamp = files.stamp(s.md);
    }

    /** Appends the system messages of a batch to system.jsonl, forced, before any block refers to them. */
    void appendSidecar(CachedSession s, List<Entry> stored) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (Entry e : stored) {
            if (e.message() instanceof SystemMessage) {
                lines.append(sealedLine(e));
            }
        }
        if (lines.length() == 0) {
            return;
        }
        FileLayer.FileStamp stamp = files.stamp(s.sidecar);
        long size = stamp == null ? 0 : stamp.size();
        if (size > 0) {
            byte[] existing = files.read(s.sidecar);
            if (existing[existing.length - 1] != '\n') {
                lines.insert(0, '\n');
            }
        }
        files.writeAt(s.sidecar, size, lines.toString().getBytes(StandardCharsets.UTF_8), true);
    }

    /**
     * Archives the current MEMORY.md (if any), then atomically replaces it with a fresh header, the
     * session's summary block (if it has a summary) and {@code kept}.
     */
    Optional<Path> rewrite(CachedSession s, List<Entry> kept, long nextIndex) throws IOException {
        StringBuilder text = new StringBuilder(MemoryMdFormat.header(clock.instant(), nextIndex));
        s.state().summary().ifPresent(summary -> text.append(MemoryMdFormat.summaryBlock(summary)));
        for (Entry e : kept) {
            text.append(MemoryMdFormat.block(e, 1, false));
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length > maxPreloadBytes) {
            throw new MemoryMdSessionStore.TooLargeException(s.md, bytes.length, maxPreloadBytes, "would be");
        }
        Path archived = null;
        byte[] current = files.read(s.md);
        if (current != null) {
            archived = archive(s, "history", current);
        }
        appendSidecar(s, notInSidecar(s, kept));
        files.writeAtomically(s.md, bytes);
        s.mdStamp = null;
        load(s, files.stamp(s.md));
        return Optional.ofNullable(archived);
    }

    /** The system messages of {@code entries} that system.jsonl does not hold (new, or written by hand in MEMORY.md). */
    List<Entry> notInSidecar(CachedSession s, List<Entry> entries) throws IOException {
        List<Entry> missing = new ArrayList<>();
        Map<String, SystemMessage> sidecar = null;
        for (Entry e : entries) {
            if (e.message() instanceof SystemMessage) {
                sidecar = sidecar == null ? readSidecar(s) : sidecar;
                if (!e.message().equals(sidecar.get(e.id()))) {
                    missing.add(e);
                }
            }
        }
        return missing;
    }

    /** Writes {@code bytes} to a new, never-colliding {@code archive/<prefix>_<timestamp>[-n].md}. */
    Path archive(CachedSession s, String prefix, byte[] bytes) throws IOException {
        Path dir = s.dir.resolve(MemoryMdSessionStore.ARCHIVE);
        files.createDirectories(dir);
        String base = prefix + "_" + ARCHIVE_TIME.format(clock.instant());
        for (int n = 0; ; n++) {
            Path target = dir.resolve(base + (n == 0 ? "" : "-" + n) + ".md");
            try {
                files.createNew(target, bytes);
                return target;
            } catch (FileAlreadyExistsException e) {
                // same timestamp as an earlier archive: try the next suffix
            }
        }
    }

    void writeState(CachedSession s, SessionState state) throws IOException {
        files.writeAtomically(s.stateFile, EntryCodec.encodeState(state).getBytes(StandardCharsets.UTF_8));
        s.fileState = state;
        s.stateStamp = files.stamp(s.stateFile);
    }
}
