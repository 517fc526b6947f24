package io.github.memorypack.benchmarks.longmemory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A generated long conversation for measuring what a memory keeps: several sittings (a day apart)
 * of everyday turns with 100+ planted facts — names, dates, numbers, preferences, events — about 20
 * of which change later (the newer value wins), and questions about them asked at the end of each
 * sitting and in a final block at the end. Questions are reworded: many share no content word with
 * the statement but the subject, some share none, so lexical overlap alone cannot find them all.
 *
 * <p>Deterministic: the same seed and length give the same conversation. Assistant replies are
 * scripted (acknowledgements for facts, topic answers for everyday turns, a neutral reply for
 * questions), so no fact is repeated outside its own turn.
 */
public final class LongMemoryConversation {

    /** The application's system message for this conversation. */
    public static final String SYSTEM = "You are a friendly personal assistant. Remember what the user tells you.";
    /** Minutes between two turns of a sitting. */
    public static final int MINUTES_PER_TURN = 2;

    /** What a turn is for. */
    public enum Kind { FILLER, FACT, UPDATE, QUESTION }

    /**
     * A question and what should be in the request for it.
     *
     * @param factKind   the kind of the fact asked about
     * @param factTurn   the user text of the turn that holds the current value (the newest statement)
     * @param answer     the current value
     * @param changed    true if the fact was changed before the question
     * @param atEnd      true for the final block, false for a sitting's end
     */
    public record Probe(FactTable.Kind factKind, String factTurn, String answer, boolean changed, boolean atEnd) {
    }

    /** One turn: the user's message, the scripted reply, its sitting, and the probe if it is a question. */
    public record Turn(int sitting, Kind kind, String user, String assistant, Probe probe) {
    }

    private final long seed;
    private final List<Turn> turns;
    private final int sittings;
    private final int facts;
    private final int updates;

    private LongMemoryConversation(long seed, List<Turn> turns, int sittings, int facts, int updates) {
        this.seed = seed;
        this.turns = List.copyOf(turns);
        this.sittings = sittings;
        this.facts = facts;
        this.updates = updates;
    }

    /** Questions asked at the end of every sitting but the last. */
    static final int QUESTIONS_PER_SITTING = 3;
    /** Questions in the final block. */
    static final int FINAL_QUESTIONS = 60;

    private static final String[] ACKS = {"Got it, I'll remember that.", "Thanks for telling me, noted.",
            "Noted!", "Okay, I've made a note of it.", "Good to know, thanks.", "Understood, I'll keep that in mind."};
    private static final String ANSWER_TO_QUESTION = "Let me think back over what you told me earlier.";

    /**
     * Generates a conversation.
     *
     * @param seed  any seed; the same seed and length give the same conversation
     * @param turns total turns, 300 to 700 (every planted fact needs room)
     * @throws IllegalArgumentException if {@code turns} is outside 300–700
     */
    public static LongMemoryConversation generate(long seed, int turns) {
        if (turns < 300 || turns > 700) {
            throw new IllegalArgumentException("turns must be 300-700, was " + turns);
        }
        Random random = new Random(seed);
        List<FactTable.Subject> subjects = new ArrayList<>(FactTable.subjects());
        Collections.shuffle(subjects, random);
        int sittings = Math.max(3, Math.round(turns / 50f));

        // the body: facts, updates and filler, in a seeded order; updates after their fact
        record Item(Kind kind, int subject) {
        }
        List<Item> body = new ArrayList<>();
        for (int i = 0; i < subjects.size(); i++) {
            body.add(new Item(Kind.FACT, i));
        }
        int questions = QUESTIONS_PER_SITTING * (sittings - 1) + FINAL_QUESTIONS;
        int updates = 0;
        for (FactTable.Subject subject : subjects) {
            updates += subject.update() == null ? 0 : 1;
        }
        int fillers = turns - questions - subjects.size() - updates;
        for (int i = 0; i < fillers; i++) {
            body.add(new Item(Kind.FILLER, -1));
        }
        Collections.shuffle(body, random);
        for (int i = 0; i < subjects.size(); i++) {
            if (subjects.get(i).update() != null) {
                int original = body.indexOf(new Item(Kind.FACT, i));
                int at = original + 1 + random.nextInt(body.size() - original);
                body.add(at, new Item(Kind.UPDATE, i));
            }
        }

        // values: the first for the statement, another for the update
        Map<Integer, String> value = new HashMap<>();
        Map<Integer, String> updated = new HashMap<>();
        for (int i = 0; i < subjects.size(); i++) {
            List<String> values = subjects.get(i).values();
            int first = random.nextInt(values.size());
            value.put(i, values.get(first));
            updated.put(i, values.get((first + 1 + random.nextInt(values.size() - 1)) % values.size()));
        }

        // the turns, sitting by sitting, with questions at each sitting's end and a final block
        Filler filler = new Filler(random);
        List<Turn> out = new ArrayList<>();
        Map<Integer, String> factTurn = new HashMap<>();
        Map<Integer, Integer> factSitting = new HashMap<>();
        Set<Integer> changed = new HashSet<>();
        Set<Integer> asked = new HashSet<>();
        int perSitting = (int) Math.ceil(body.size() / (double) sittings);
        for (int s = 0; s < sittings; s++) {
            for (int i = s * perSitting; i < Math.min(body.size(), (s + 1) * perSitting); i++) {
                Item item = body.get(i);
                if (item.kind() == Kind.FILLER) {
                    String[] turn = filler.next(out.size());
                    out.add(new Turn(s, Kind.FILLER, turn[0], turn[1], null));
                    continue;
                }
                FactTable.Subject subject = subjects.get(item.subject());
                String text;
                if (item.kind() == Kind.FACT) {
                    String template = subject.statements().get(random.nextInt(subject.statements().size()));
                    text = fill(template, value.get(item.subject()));
                } else {
                    text = fill(subject.update(), updated.get(item.subject()));
                    changed.add(item.subject());
                }
                factTurn.put(item.subject(), text);
                factSitting.put(item.subject(), s);
                out.add(new Turn(s, item.kind(), text, ACKS[random.nextInt(ACKS.length)], null));
            }
            if (s < sittings - 1) {
                List<Integer> earlier = new ArrayList<>();
                for (Map.Entry<Integer, Integer> planted : factSitting.entrySet()) {
                    if (planted.getValue() < s && !asked.contains(planted.getKey())) {
                        earlier.add(planted.getKey());
                    }
                }
                Collections.sort(earlier);
                Collections.shuffle(earlier, random);
                for (int q = 0; q < Math.min(QUESTIONS_PER_SITTING, earlier.size()); q++) {
                    int subject = earlier.get(q);
                    asked.add(subject);
                    out.add(question(random, s, subjects.get(subject), factTurn.get(subject),
                            changed.contains(subject) ? updated.get(subject) : value.get(subject),
                            changed.contains(subject), false));
                }
            }
        }
        // final block: every changed fact, then others not asked yet, up to FINAL_QUESTIONS
        List<Integer> finals = new ArrayList<>(new java.util.TreeSet<>(changed));
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < subjects.size(); i++) {
            if (!changed.contains(i) && !asked.contains(i)) {
                others.add(i);
            }
        }
        Collections.shuffle(others, random);
        finals.addAll(others.subList(0, Math.min(others.size(), FINAL_QUESTIONS - finals.size())));
        Collections.shuffle(finals, random);
        for (int subject : finals) {
            out.add(question(random, sittings - 1, subjects.get(subject), factTurn.get(subject),
                    changed.contains(subject) ? updated.get(subject) : value.get(subject), changed.contains(subject), true));
        }
        return new LongMemoryConversation(seed, out, sittings, subjects.size(), updates);
    }

    private static Turn question(Random random, int sitting, FactTable.Subject subject, String factTurn, String answer,
                                 boolean changed, boolean atEnd) {
        String question = subject.questions().get(random.nextInt(subject.questions().size()));
        return new Turn(sitting, Kind.QUESTION, question, ANSWER_TO_QUESTION,
                new Probe(subject.kind(), factTurn, answer, changed, atEnd));
    }

    private static String fill(String template, String value) {
        String text = template.replace("{v}", value);
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** The turns in order. */
    public List<Turn> turns() {
        return turns;
    }

    /** Number of sittings. */
    public int sittings() {
        return sittings;
    }

    /** Number of planted facts (subjects), not counting their updates. */
    public int facts() {
        return facts;
    }

    /** Number of facts that change later. */
    public int updates() {
        return updates;
    }

    /** Number of questions. */
    public int questions() {
        int questions = 0;
        for (Turn turn : turns) {
            questions += turn.probe() == null ? 0 : 1;
        }
        return questions;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "seed %d: %d turns in %d sittings, %d facts (%d changed), %d questions",
                seed, turns.size(), sittings, facts, updates, questions());
    }
}
