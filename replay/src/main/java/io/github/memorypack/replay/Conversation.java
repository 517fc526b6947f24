package io.github.memorypack.replay;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A scripted multi-sitting conversation: what the user says, what the assistant answers, and probe
 * turns that name the facts the model needs to answer them.
 *
 * <p>Text format, one item a line: {@code U: } user message, {@code A: } the assistant's answer
 * (one pair is a turn), {@code ## <title>} starts a new sitting (the replay reopens the store
 * there, as if the app restarted), {@code F: a | b} after a turn makes it a probe whose answer
 * needs the facts {@code a} and {@code b}. Lines starting with {@code #} (but not {@code ##}) and
 * blank lines are ignored. Anything else is rejected with the line number.
 *
 * <p>{@link #builtIn()} is the project's own script: a traveller planning a three-week rail trip
 * over four sittings, 322 turns, name, city, budget and birthday planted in the first five turns
 * and asked about in the last two.
 */
public final class Conversation {

    /** Classpath location of the built-in script. */
    public static final String BUILT_IN = "conversation.txt";

    private final String name;
    private final List<Sitting> sittings;

    private Conversation(String name, List<Sitting> sittings) {
        this.name = name;
        this.sittings = List.copyOf(sittings);
    }

    /** One user message, the scripted answer, and the facts the turn probes (empty for a normal turn). */
    public record Turn(String user, String assistant, List<String> facts) {
        public Turn {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(assistant, "assistant");
            facts = List.copyOf(facts);
        }

        public boolean isProbe() {
            return !facts.isEmpty();
        }
    }

    /** Turns said in one go, between two restarts. */
    public record Sitting(String title, List<Turn> turns) {
        public Sitting {
            turns = List.copyOf(turns);
        }
    }

    /** The project's scripted conversation (from the classpath). */
    public static Conversation builtIn() {
        InputStream in = Conversation.class.getResourceAsStream(BUILT_IN);
        if (in == null) {
            throw new IllegalStateException(BUILT_IN + " is not on the classpath");
        }
        return parse("built-in travel planning script", new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /** Reads a conversation file in the format above. */
    public static Conversation load(Path file) {
        try {
            return parse(file.toString(), Files.newBufferedReader(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read conversation " + file, e);
        }
    }

    /**
     * Parses the format above; closes {@code source}.
     *
     * @throws IllegalArgumentException on a malformed line, or when there is no turn at all
     */
    public static Conversation parse(String name, Reader source) {
        List<Sitting> sittings = new ArrayList<>();
        String title = "Sitting 1";
        List<Turn> turns = new ArrayList<>();
        String user = null;
        int number = 0;
        try (BufferedReader reader = new BufferedReader(source)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                number++;
                if (line.isBlank() || (line.startsWith("#") && !line.startsWith("## "))) {
                    continue;
                }
                if (line.startsWith("## ")) {
                    requireNoOpenTurn(user, name, number);
                    if (!turns.isEmpty()) {
                        sittings.add(new Sitting(title, turns));
                        turns = new ArrayList<>();
                    }
                    title = line.substring(3).trim();
                } else if (line.startsWith("U: ")) {
                    requireNoOpenTurn(user, name, number);
                    user = line.substring(3);
                } else if (line.startsWith("A: ") && user != null) {
                    turns.add(new Turn(user, line.substring(3), List.of()));
                    user = null;
                } else if (line.startsWith("F: ") && user == null && !turns.isEmpty()
                        && !turns.get(turns.size() - 1).isProbe()) {
                    Turn last = turns.remove(turns.size() - 1);
                    List<String> facts = Arrays.stream(line.substring(3).split("\\|"))
                            .map(String::trim).filter(f -> !f.isEmpty()).toList();
                    turns.add(new Turn(last.user(), last.assistant(), facts));
                } else {
                    throw new IllegalArgumentException(name + ":" + number + ": expected 'U: ', 'A: ' after a user line, "
                            + "'F: ' after a turn, or '## ', but found: " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read conversation " + name, e);
        }
        requireNoOpenTurn(user, name, number);
        if (!turns.isEmpty()) {
            sittings.add(new Sitting(title, turns));
        }
        if (sittings.isEmpty()) {
            throw new IllegalArgumentException(name + " has no turns");
        }
        return new Conversation(name, sittings);
    }

    private static void requireNoOpenTurn(String user, String name, int number) {
        if (user != null) {
            throw new IllegalArgumentException(name + ":" + number + ": the user line before has no 'A: ' answer");
        }
    }

    /** Where it came from. */
    public String name() {
        return name;
    }

    public List<Sitting> sittings() {
        return sittings;
    }

    /** Every turn, sittings joined. */
    public List<Turn> turns() {
        return sittings.stream().flatMap(s -> s.turns().stream()).toList();
    }

    /** Every fact the probes ask for. */
    public List<String> facts() {
        return turns().stream().flatMap(t -> t.facts().stream()).toList();
    }

    /**
     * A shortened copy for quick runs: the first {@code maxTurns} turns (sittings kept as they
     * fall), plus every probe turn at its end so the probes still come last.
     *
     * @throws IllegalArgumentException if {@code maxTurns < 1}
     */
    public Conversation firstTurns(int maxTurns) {
        if (maxTurns < 1) {
            throw new IllegalArgumentException("maxTurns must be >= 1, was " + maxTurns);
        }
        List<Sitting> kept = new ArrayList<>();
        List<Turn> probes = new ArrayList<>();
        int taken = 0;
        for (Sitting sitting : sittings) {
            List<Turn> turns = new ArrayList<>();
            for (Turn turn : sitting.turns()) {
                if (turn.isProbe()) {
                    probes.add(turn);
                } else if (taken < maxTurns) {
                    turns.add(turn);
                    taken++;
                }
            }
            if (!turns.isEmpty()) {
                kept.add(new Sitting(sitting.title(), turns));
            }
        }
        if (!probes.isEmpty()) {
            Sitting last = kept.isEmpty() ? null : kept.remove(kept.size() - 1);
            List<Turn> turns = new ArrayList<>(last == null ? List.of() : last.turns());
            turns.addAll(probes);
            kept.add(new Sitting(last == null ? sittings.get(sittings.size() - 1).title() : last.title(), turns));
        }
        return new Conversation(name + " (first " + maxTurns + " turns + probes)", kept);
    }
}
