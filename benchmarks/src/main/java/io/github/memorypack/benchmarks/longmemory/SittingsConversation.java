package io.github.memorypack.benchmarks.longmemory;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.TextStyle;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A generated conversation that looks like real multi-session chat between two people, the shape of
 * LoCoMo's human-checked conversations: two named speakers who address each other by name in most
 * lines, 20–32 sittings days or weeks apart (each sitting's time known only to the store's clock and,
 * now and then, a greeting), small talk and topic drift, facts said once and in passing (often as the
 * answer to the other's question), some facts updated in a later sitting, photos described in text,
 * and relative times ("yesterday", "last weekend") that only the sitting's date resolves.
 *
 * <p>Questions are asked after the last sitting, of five kinds: single-hop (one fact), multi-hop (two
 * or three facts from different sittings), temporal (the answer is a date, resolved against the
 * sitting's date), open-domain inference (the answer follows from what was said with everyday
 * knowledge) and unanswerable (nothing said answers it: a topic never raised, or the other speaker's
 * fact). Every question is drawn from a pool of phrasings that paraphrase the fact (synonyms,
 * hypernyms, euphemisms, pronouns, another word order) rather than repeat its words; a statement is
 * drawn from its own pool, so that neither side's template words decide.
 *
 * <p>Speaker A's lines are the user messages and speaker B's the assistant messages, as a chat
 * imported into a store has them; the two alternate, A first in every sitting. Deterministic: the
 * same seed gives the same conversation.
 */
public final class SittingsConversation {

    /** The application's system message for this conversation. */
    public static final String SYSTEM = "You are a helpful assistant. Use the conversation so far to answer.";

    /** The five kinds of question. */
    public enum QuestionKind {
        SINGLE_HOP("single-hop"), MULTI_HOP("multi-hop"), TEMPORAL("temporal"), OPEN_DOMAIN("open-domain"),
        UNANSWERABLE("unanswerable");

        private final String label;

        QuestionKind(String label) {
            this.label = label;
        }

        /** The kind's name in tables. */
        public String label() {
            return label;
        }
    }

    /**
     * One line of the conversation.
     *
     * @param sitting 0-based sitting
     * @param first   true for speaker A (the user), false for B (the assistant)
     * @param text    what was said
     * @param time    when it was said (what the store's clock reads at the append)
     */
    public record Line(int sitting, boolean first, String text, Instant time) {
    }

    /**
     * A question asked after the last sitting.
     *
     * @param kind            its kind
     * @param text            the question
     * @param evidence        the lines (indices into {@link #lines()}) that answer it; empty when unanswerable
     * @param answers         strings that must all be in the context for the answer to be there
     *                        (case-insensitive); empty when unanswerable, or when the evidence lines
     *                        together are the answer (which of two came first)
     * @param evidenceSitting the oldest evidence line's sitting, -1 when unanswerable
     */
    public record Question(QuestionKind kind, String text, List<Integer> evidence, List<String> answers,
                           int evidenceSitting) {
    }

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("d MMMM yyyy", Locale.ENGLISH);
    private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("MMMM yyyy", Locale.ENGLISH);

    private final long seed;
    private final String nameA;
    private final String nameB;
    private final List<Line> lines;
    private final List<Question> questions;
    private final int sittings;
    private final int facts;

    private SittingsConversation(long seed, String nameA, String nameB, List<Line> lines, List<Question> questions,
                                 int sittings, int facts) {
        this.seed = seed;
        this.nameA = nameA;
        this.nameB = nameB;
        this.lines = List.copyOf(lines);
        this.questions = List.copyOf(questions);
        this.sittings = sittings;
        this.facts = facts;
    }

    /** The lines, oldest first. */
    public List<Line> lines() {
        return lines;
    }

    /** The questions, asked after the last sitting. */
    public List<Question> questions() {
        return questions;
    }

    /** Number of sittings. */
    public int sittings() {
        return sittings;
    }

    /** Speaker A's name (the user). */
    public String nameA() {
        return nameA;
    }

    /** Speaker B's name (the assistant). */
    public String nameB() {
        return nameB;
    }

    @Override
    public String toString() {
        Map<QuestionKind, Integer> kinds = new LinkedHashMap<>();
        for (QuestionKind kind : QuestionKind.values()) {
            kinds.put(kind, 0);
        }
        for (Question question : questions) {
            kinds.merge(question.kind(), 1, Integer::sum);
        }
        StringBuilder perKind = new StringBuilder();
        for (Map.Entry<QuestionKind, Integer> kind : kinds.entrySet()) {
            perKind.append(perKind.length() == 0 ? "" : ", ").append(kind.getValue()).append(' ')
                    .append(kind.getKey().label());
        }
        return String.format(Locale.ROOT, "seed %d: %s and %s, %d lines in %d sittings (%s to %s), %d facts, "
                        + "%d questions (%s)", seed, nameA, nameB, lines.size(), sittings,
                DAY.format(lines.get(0).time().atZone(ZoneOffset.UTC)),
                DAY.format(lines.get(lines.size() - 1).time().atZone(ZoneOffset.UTC)), facts, questions.size(), perKind);
    }

    // ------------------------------------------------------------------------------------------------
    // people

    private record Person(String name, String they, String them, String their) {
    }

    private static final Person[] PEOPLE = {
        new Person("Maya", "she", "her", "her"), new Person("Daniel", "he", "him", "his"),
        new Person("Priya", "she", "her", "her"), new Person("Marcus", "he", "him", "his"),
        new Person("Elena", "she", "her", "her"), new Person("Tom", "he", "him", "his"),
        new Person("Aisha", "she", "her", "her"), new Person("Jonas", "he", "him", "his"),
        new Person("Grace", "she", "her", "her"), new Person("Luis", "he", "him", "his"),
        new Person("Hannah", "she", "her", "her"), new Person("Kenji", "he", "him", "his"),
        new Person("Sofia", "she", "her", "her"), new Person("Ben", "he", "him", "his"),
        new Person("Nora", "she", "her", "her"), new Person("Omar", "he", "him", "his"),
        new Person("Chloe", "she", "her", "her"), new Person("Felix", "he", "him", "his"),
        new Person("Ruth", "she", "her", "her"), new Person("Sam", "he", "him", "his"),
        new Person("Leila", "she", "her", "her"), new Person("Victor", "he", "him", "his"),
        new Person("Ines", "she", "her", "her"), new Person("Caleb", "he", "him", "his")};

    // ------------------------------------------------------------------------------------------------
    // facts: each a kind of thing people say once, with pools of values, statements, reactions and questions

    /** A question about a fact: its kind, what answers it ({@code {n}} a value slot, {@code {date}}), its phrasings. */
    private record Ask(QuestionKind kind, String answer, String... phrasings) {
    }

    /**
     * A kind of fact. {@code values}: "|"-separated slots {0}, {1}, …; statements use {when} (a relative
     * time, for events), {other} (the addressee) and the slots; questions use {self}, {they}, {them},
     * {their}, {other} and the slots.
     */
    private record FactType(String id, boolean event, String[] values, String[] statements, String[] reactions,
                            Ask[] asks, String[] updates) {
    }

    private static String[] v(String... values) {
        return values;
    }

    private static Ask ask(QuestionKind kind, String answer, String... phrasings) {
        return new Ask(kind, answer, phrasings);
    }

    private static final QuestionKind SINGLE = QuestionKind.SINGLE_HOP;
    private static final QuestionKind TEMPORAL = QuestionKind.TEMPORAL;
    private static final QuestionKind OPEN = QuestionKind.OPEN_DOMAIN;

    private static final List<FactType> FACTS = List.of(
        new FactType("pet", true,
            v("beagle|Pepper", "golden retriever|Biscuit", "tabby kitten|Miso", "rescue greyhound|Dash",
                "border collie|Juno", "grey kitten|Olive", "dachshund|Noodle", "corgi|Waffles", "ginger cat|Mango"),
            v("{when} we finally adopted a {0} from the shelter, and we named her {1}!",
                "Guess who has a new roommate, {other}? A little {0} called {1} — we picked her up {when}.",
                "So {when} we brought home a {0}. The kids voted and she's officially {1}.",
                "Meet {1}! [shares a photo of a sleepy {0} curled up on a blue blanket] She moved in with us {when}."),
            v("Aww, that is the cutest name ever!", "No way, congratulations! Send me more photos please.",
                "Oh I love that. Hope she lets you sleep!"),
            new Ask[] {
                ask(SINGLE, "{1}", "What is the name of {self}'s new furry companion?",
                    "What did {self} call the animal that joined {their} household?",
                    "How is {self}'s new pet called?"),
                ask(SINGLE, "{0}", "What kind of animal did {self} take in?", "Which breed is {self}'s pet?"),
                ask(TEMPORAL, "{date}", "When did {self} bring home {their} new pet?",
                    "When did the animal arrive at {self}'s place?")},
            null),
        new FactType("car", true,
            v("Honda Civic", "Subaru Outback", "Tesla Model 3", "Toyota Prius", "Mazda CX-5", "Volkswagen Golf",
                "Ford Mustang", "Kia Niro", "Volvo XC40"),
            v("I finally traded in my old clunker {when} — I'm driving a {0} now!",
                "Big news, {other}: {when} I picked up a {0}. Goodbye, bus pass!",
                "So {when} I bought a used {0}; it still smells new inside.",
                "Sorry I'm late, {other}, I was at the dealership — signed the papers for a {0} {when}."),
            v("Ooh, fancy! Road trip soon?", "That's huge, congrats! How does it drive?",
                "Nice, no more waiting in the rain at the stop!"),
            new Ask[] {
                ask(SINGLE, "{0}", "What vehicle does {self} own these days?",
                    "What is {self} getting around in now?", "Which automobile did {self} purchase?")},
            v("Remember the {old}? I sold it {when} and got a {0} instead, way better on fuel.",
                "Update on the wheels, {other}: the {old} is gone, I'm in a {0} since {when}.")),
        new FactType("job", true,
            v("a small architecture firm|junior architect", "the city hospital|night nurse",
                "a video game studio|sound designer", "the public library|archivist",
                "a bakery downtown|pastry chef", "a solar energy startup|data analyst",
                "the local high school|chemistry teacher", "a law firm|paralegal", "a travel agency|tour planner"),
            v("I accepted an offer {when}! I'm joining {0} as a {1}.",
                "Starting next month I'll be working at {0} — they hired me as a {1} {when}.",
                "So the interview went well, {other}. {when} they called: I'm the new {1} at {0}!"),
            v("That's amazing, you deserve it!", "Wow, congrats! When do you start?",
                "I'm so proud of you, that's a big step."),
            new Ask[] {
                ask(SINGLE, "{1}", "What is {self}'s occupation now?", "What does {self} do for a living these days?"),
                ask(SINGLE, "{0}", "Where is {self} employed?", "Who is {self}'s employer at the moment?")},
            v("Quick update, {other}: I left my old job {when}. I'm now a {1} at {0}.",
                "Career news! {when} I switched jobs again — {1} at {0} now.")),
        new FactType("loss", true,
            v("grandma", "grandpa", "uncle Ray", "aunt Linda", "godmother", "grandfather"),
            v("It's been a rough stretch, {other}. My {0} passed away {when}.",
                "Sorry I've been quiet. We said goodbye to my {0} {when}; the funeral was small but lovely.",
                "My {0} died {when}. I keep thinking about all the summers at their place."),
            v("Oh no, I'm so sorry. I'm here if you want to talk.", "That's heartbreaking. Sending you a big hug.",
                "I'm so sorry for your loss. Take all the time you need."),
            new Ask[] {
                ask(SINGLE, "{0}", "Who did {self} lose recently?",
                    "Which family member of {self} is no longer with us?", "Whose death was {self} grieving?"),
                ask(TEMPORAL, "{date}", "When did {self}'s relative pass?", "When did {self} suffer the bereavement?")},
            null),
        new FactType("unwind", false,
            v("a long bath with a podcast|bath", "running along the river|running", "doing jigsaw puzzles|puzzles",
                "baking bread|bread", "playing the piano|piano", "fussing over my houseplants|houseplants",
                "kayaking on the lake|kayaking", "knitting in front of the TV|knitting"),
            v("Honestly the only thing that calms me down after a crazy day is {0}.",
                "When work gets too much I switch off by {0}, no phone allowed.",
                "You know what saves me on bad weeks, {other}? {0}. Works every time."),
            v("Ha, I should try that.", "That sounds so peaceful.", "Good for you, everyone needs something like that."),
            new Ask[] {
                ask(SINGLE, "{1}", "How does {self} unwind?", "What does {self} do to de-stress?",
                    "What helps {self} decompress after a hard day?")},
            null),
        new FactType("trip", true,
            v("Lisbon|Portugal", "Kyoto|Japan", "Reykjavik|Iceland", "Oaxaca|Mexico", "Edinburgh|Scotland",
                "Cape Town|South Africa", "Vancouver|Canada", "Crete|Greece", "Hanoi|Vietnam", "Marrakesh|Morocco"),
            v("We got back from {0} {when} — the food was unbelievable.",
                "{when} we flew to {0} for a few days. I'm still jet-lagged, {other}.",
                "Did I tell you, {other}? We spent a long weekend in {0} {when}.",
                "[shares a photo of a narrow street with colourful houses] This was {0}, {when}. Didn't want to leave."),
            v("Jealous! I've always wanted to go there.", "Sounds incredible, you have to tell me everything.",
                "Wow, what a trip. Best thing you ate?"),
            new Ask[] {
                ask(TEMPORAL, "{date}", "When did {self} visit {0}?", "When was {self}'s trip to {0}?"),
                ask(OPEN, "{0}", "Has {self} ever been to {1}?", "Would {self} have stories from {1} to share?")},
            null),
        new FactType("hobby", true,
            v("pottery|pottery", "rock climbing|climbing", "salsa dancing|salsa", "the ukulele|ukulele",
                "watercolor painting|watercolor", "Spanish lessons|Spanish", "woodworking|woodworking",
                "sourdough baking|sourdough", "chess club|chess", "archery|archery"),
            v("I signed up for {0} {when}, Thursday evenings. Wish me luck!",
                "So I've picked up {0} — started {when} and I'm hooked, {other}.",
                "New obsession alert: {0}. My first session was {when}."),
            v("That's so cool! You'll have to show me.", "Love that for you!", "Oh fun, is it hard?"),
            new Ask[] {
                ask(TEMPORAL, "{date}", "When did {self} start {1}?", "When did {self} get into {1}?")},
            null),
        new FactType("injury", true,
            v("sprained my ankle|ankle|basketball", "broke my wrist|wrist|ice skating",
                "pulled a muscle in my back|back|tennis", "twisted my knee|knee|soccer",
                "cracked a rib|rib|volleyball", "dislocated my shoulder|shoulder|rugby"),
            v("I {0} {when} playing {2}. So dumb.", "Don't laugh, {other}: I {0} {when} at {2}.",
                "I'm on the couch for a while — {when} I {0} during {2}."),
            v("Ouch! Take it easy, okay?", "Oh no, hope it heals fast!", "Yikes. Ice and rest!"),
            new Ask[] {
                ask(SINGLE, "{1}", "Which body part did {self} hurt?", "Where was {self} injured?"),
                ask(SINGLE, "{2}", "What sport was {self} playing when the accident happened?"),
                ask(TEMPORAL, "{date}", "When did {self} get hurt?", "When did {self}'s accident happen?")},
            null),
        new FactType("book", false,
            v("The Midnight Library|Matt Haig", "Project Hail Mary|Andy Weir", "Circe|Madeline Miller",
                "Educated|Tara Westover", "Pachinko|Min Jin Lee", "Klara and the Sun|Kazuo Ishiguro",
                "Where the Crawdads Sing|Delia Owens", "The Night Circus|Erin Morgenstern"),
            v("I just finished {0} by {1}, couldn't put it down.",
                "Reading {0} right now — {1} really knows how to tell a story.",
                "You'd love {0}, {other}. {1} had me crying on the train."),
            v("Adding it to my list!", "I've heard good things.", "Lend it to me when you're done?"),
            new Ask[] {
                ask(SINGLE, "{0}", "Which title did {self} recommend?", "What has {self} been reading?"),
                ask(SINGLE, "{1}", "Who wrote the story {self} couldn't stop reading?")},
            null),
        new FactType("craft", true,
            v("ceramic bowl|bowl", "painting of a sunset over the lake|sunset", "sketch of my neighbor's cat|sketch",
                "knitted scarf|scarf", "wooden birdhouse|birdhouse", "quilt for the baby|quilt", "clay mug|mug"),
            v("Look what I made {when}! [shares a photo of a lopsided {0} on a windowsill]",
                "[shares a photo of a {0}] Finished this {when}, {other}. Be honest!",
                "I made a {0} {when} — not perfect, but it's mine. [shares a photo of it]"),
            v("That's gorgeous, you're so talented!", "Wait, you MADE that?", "Frame it immediately."),
            new Ask[] {
                ask(SINGLE, "{1}", "What did {self} create with {their} own hands?",
                    "What handmade thing did {self} show a picture of?")},
            null),
        new FactType("kid", false,
            v("daughter|Lily|seven", "son|Theo|five", "daughter|Ava|nine", "son|Leo|four", "daughter|Zoe|eleven",
                "son|Max|eight"),
            v("{other}, my {0} {1} turns {2} next week and wants a dinosaur party.",
                "Sorry, school run — {1}, my {0}, is {2} now and has opinions about everything.",
                "My {0} {1} lost a tooth today, {2} years old and acting like a teenager."),
            v("Haha, that age is the best.", "Aww, happy early birthday to them!", "Kids grow up so fast."),
            new Ask[] {
                ask(SINGLE, "{1}", "What is the name of {self}'s child?", "What is {self}'s kid called?"),
                ask(SINGLE, "{2}", "How old is {self}'s youngster?")},
            null),
        new FactType("allergy", false,
            v("peanuts|peanuts|satay noodles", "shellfish|shellfish|a shrimp paella", "gluten|gluten|a pasta bake",
                "dairy|dairy|a cheese fondue", "eggs|eggs|a quiche", "sesame|sesame|hummus"),
            v("Can't have any of that, sadly — I'm allergic to {0}.",
                "Ugh, I had a reaction again, {other}; turns out I'm allergic to {0}.",
                "Skipping the buffet; the doctor confirmed {0} make me break out in hives."),
            v("Oh no, that must make eating out tricky.", "Good to know, I'll remember that!",
                "That sounds miserable, sorry."),
            new Ask[] {
                ask(SINGLE, "{1}", "What does {self} have to avoid eating?", "Which food makes {self} ill?"),
                ask(OPEN, "{1}", "Would {2} be a safe dish to cook for {self}?",
                    "Should {other} serve {2} when {self} comes over for dinner?")},
            null),
        new FactType("worry", false,
            v("the layoffs at my company|layoffs", "my mom's surgery next month|surgery",
                "making rent after the increase|rent", "my son's grades|grades", "the lump the doctor found|lump",
                "my brother's drinking|drinking"),
            v("I keep lying awake at night thinking about {0}.", "Can't stop stressing over {0}, to be honest, {other}.",
                "Everything's fine, mostly. Just {0} on my mind all the time."),
            v("That's a lot to carry. I'm here.", "I'm sorry, that sounds really stressful.",
                "Hang in there, it'll work out."),
            new Ask[] {
                ask(OPEN, "{1}", "What has been weighing on {self}'s mind?",
                    "What might be keeping {self} up at night?", "What is {self} anxious about?")},
            null),
        new FactType("move", true,
            v("Denver", "Portland", "Austin", "Chicago", "Boston", "Seattle", "Atlanta", "Minneapolis", "Pittsburgh"),
            v("We're officially moving to {0}; signed the lease {when}. Boxes everywhere!",
                "Big change, {other}: we relocated to {0} {when}. Still no curtains.",
                "Hello from {0}! We got the keys {when}."),
            v("A fresh start, how exciting!", "Wow, that's a big move. How do the kids feel?",
                "Send me your new address!"),
            new Ask[] {
                ask(SINGLE, "{0}", "Which city does {self} live in now?", "Where is {self} based these days?"),
                ask(TEMPORAL, "{date}", "When did {self} relocate?")},
            v("Plans changed again, {other} — we left {old} {when} and we're in {0} now.",
                "Surprise: no more {old}. We moved to {0} {when}.")),
        new FactType("volunteer", false,
            v("the animal shelter|shelter", "a soup kitchen|soup kitchen", "the children's hospital|hospital",
                "a community garden|garden", "the food bank|food bank", "a literacy program|literacy"),
            v("I've been helping out at {0} on Saturdays, {other}.", "My Saturday mornings belong to {0} now, unpaid but worth it.",
                "Spent all morning at {0} again. Best part of my week."),
            v("That's so generous of you.", "The world needs more people like you.", "Love that."),
            new Ask[] {
                ask(SINGLE, "{1}", "What charity work does {self} do?", "Where does {self} give {their} time for free?")},
            null),
        new FactType("comfort", false,
            v("my grandma's chicken soup|chicken soup", "mac and cheese|mac and cheese", "a big bowl of ramen|ramen",
                "pancakes with blueberries|pancakes", "dumplings from the corner shop|dumplings",
                "spicy lentil curry|curry"),
            v("Nothing beats {0} after a long week, {other}.", "Bad day, so it's {0} tonight. Always fixes me.",
                "My guilty pleasure? {0}. Don't judge."),
            v("Now I'm hungry!", "Solid choice.", "Ha, no judgement here."),
            new Ask[] {
                ask(SINGLE, "{1}", "What does {self} eat to feel better after a bad day?",
                    "What is {self}'s favourite feel-good meal?")},
            null),
        new FactType("race", true,
            v("half marathon|half marathon", "5K charity run|5K", "sprint triathlon|triathlon",
                "hundred-mile bike ride|bike ride", "open-water swim|swim", "mud obstacle race|obstacle"),
            v("I finished my first {0} {when}! My legs are jelly.", "Crossed the finish line of a {0} {when}, {other}!",
                "[shares a photo with a medal] {0}, done {when}. Never again. Maybe."),
            v("You're a machine! Congrats!", "So impressive, how do you feel?", "Proud of you!"),
            new Ask[] {
                ask(SINGLE, "{1}", "What athletic challenge did {self} complete?", "Which endurance event did {self} take part in?"),
                ask(TEMPORAL, "{date}", "When did {self} do the {1}?", "When did {self} earn that medal?")},
            null),
        new FactType("gift", true,
            v("a record player|record player", "hiking boots|hiking boots", "an espresso machine|espresso",
                "a telescope|telescope", "a vintage camera|camera", "an e-reader|e-reader"),
            v("My partner surprised me with {0} for my birthday {when}.",
                "{when} was my birthday, {other}, and look: {0}! [shares a photo of the box]",
                "Best birthday present ever: {0}. Got it {when}."),
            v("Happy belated birthday!", "What a thoughtful gift!", "Oh, they know you well."),
            new Ask[] {
                ask(SINGLE, "{1}", "What present did {self} receive?", "What did {self} get from {their} partner?"),
                ask(TEMPORAL, "{date}", "When is {self}'s birthday?", "When did {self} celebrate turning a year older?")},
            null),
        new FactType("fear", false,
            v("heights|heights|skydiving", "deep water|deep water|scuba diving", "spiders|spiders|a jungle camping trip",
                "flying|flying|a long-haul flight", "snakes|snakes|a reptile zoo tour", "crowds|crowds|a stadium concert"),
            v("I could never do that, {other} — I'm terrified of {0}.", "Nope. {0} and me do not get along at all.",
                "Ever since I was a kid I've panicked around {0}."),
            v("Totally fair.", "Same, honestly.", "I get it, no shame in that."),
            new Ask[] {
                ask(SINGLE, "{1}", "What phobia does {self} have?", "What frightens {self}?"),
                ask(OPEN, "{1}", "Would {self} enjoy {2}?", "Is {2} a good birthday surprise for {self}?")},
            null),
        new FactType("goal", false,
            v("a trip to Patagonia|Patagonia", "a down payment on a house|down payment", "a new laptop|laptop",
                "culinary school|culinary school", "a wedding next summer|wedding", "a sailing boat|boat"),
            v("I'm putting money aside every month for {0}.", "Every spare dollar goes to {0} now, {other}.",
                "No takeout for me — I'm squirreling away cash for {0}."),
            v("You'll get there!", "Smart, good luck.", "That's a great goal."),
            new Ask[] {
                ask(SINGLE, "{1}", "What is {self} saving for?", "What financial goal does {self} have?")},
            null),
        new FactType("concert", true,
            v("Taylor Swift|Taylor Swift", "Coldplay|Coldplay", "the Lumineers|Lumineers", "a jazz quartet|jazz",
                "Billie Eilish|Billie Eilish", "the symphony orchestra|orchestra"),
            v("We saw {0} live {when}, I lost my voice from singing.", "{when} we went to see {0}, {other}. Goosebumps!",
                "[shares a blurry photo of a stage with purple lights] {0}, {when}!"),
            v("So jealous!", "That must have been magical.", "Best night ever, I bet."),
            new Ask[] {
                ask(SINGLE, "{1}", "Which musician did {self} see perform?", "Whose show did {self} attend?"),
                ask(TEMPORAL, "{date}", "When did {self} go to the gig?", "When did {self} see that performance?")},
            null),
        new FactType("sibling", false,
            v("brother|Adam|Dublin", "sister|Mia|Melbourne", "brother|Ravi|Toronto", "sister|Julia|Berlin",
                "brother|Chris|Nairobi", "sister|Tess|Singapore"),
            v("My {0} {1} called from {2} last night, {other}; they're doing well.",
                "Missing my {0} {1} — {2} is so far away.", "{1}, my {0}, finally settled in {2}."),
            v("Long distance is hard.", "Glad they're doing well!", "Maybe visit them soon?"),
            new Ask[] {
                ask(SINGLE, "{2}", "Where does {self}'s sibling live?", "In which city is {self}'s family member abroad?"),
                ask(SINGLE, "{1}", "What is the name of {self}'s sibling?")},
            null),
        new FactType("show", false,
            v("The Bear|The Bear", "Severance|Severance", "Ted Lasso|Ted Lasso", "Shogun|Shogun",
                "Only Murders in the Building|Only Murders", "The Crown|The Crown"),
            v("I've been binge-watching {0} every night, {other}.", "Have you seen {0}? I'm obsessed.",
                "Stayed up way too late with {0} again."),
            v("Oh I've heard about it!", "No spoilers please!", "Adding it to my queue."),
            new Ask[] {
                ask(SINGLE, "{1}", "What series has {self} been streaming?", "Which TV programme is {self} hooked on?")},
            null),
        new FactType("study", true,
            v("nursing|nursing", "an MBA|MBA", "a photography|photography", "a master's in social work|social work",
                "a web development|web development", "a counseling|counseling"),
            v("I got accepted into {0} program {when}! Classes start in the fall.",
                "Guess what, {other}: the letter came {when}, I'm in {0} program.",
                "I'm going back to school — {0} program, they said yes {when}."),
            v("That's wonderful news!", "Congratulations, student life again!", "So happy for you."),
            new Ask[] {
                ask(SINGLE, "{1}", "What is {self} going to study?", "Which degree is {self} pursuing?"),
                ask(TEMPORAL, "{date}", "When did {self} hear back from the school?")},
            null),
        new FactType("garden", false,
            v("tomatoes|tomatoes", "strawberries|strawberries", "chili peppers|chili", "sunflowers|sunflowers",
                "zucchini|zucchini", "lavender|lavender"),
            v("Our balcony is full of {0} now, {other}, I talk to them every morning.",
                "[shares a photo of pots on a balcony] My {0}! First time growing anything.",
                "The {0} on the patio are finally doing well."),
            v("Green thumb!", "Wow, look at them.", "I kill every plant I touch, teach me."),
            new Ask[] {
                ask(SINGLE, "{1}", "What is {self} growing at home?", "What plants does {self} look after?")},
            null));

    /** Aggregations over two or three facts of one type and speaker, said in different sittings. */
    private static final Map<String, String[]> AGGREGATES = Map.of(
        "trip", v("Which places has {self} travelled to?", "Name the destinations {self} visited."),
        "hobby", v("What new pastimes has {self} taken up?", "Which activities did {self} start?"),
        "concert", v("Which live performances has {self} been to?"),
        "craft", v("What things has {self} made by hand?"));

    /** Questions about topics nobody raises in these conversations. */
    private static final String[] NEVER_SAID = {
        "What is the name of {self}'s dentist?", "What blood type does {self} have?",
        "Which political party does {self} support?", "What is {self}'s favourite board game?",
        "How much does {self} pay for the gym each month?", "What did {self} dress up as for Halloween?",
        "Which football team does {self} root for?", "What is {self}'s shoe size?",
        "What is {self}'s landlord called?", "Which language did {self} study at university?",
        "What colour is {self}'s front door?", "What was {self}'s first car?",
        "How many cousins does {self} have?", "What is {self}'s star sign?",
        "Which airline does {self} prefer?", "What did {self} have for breakfast on the first day of the year?",
        "What is {self}'s mother's maiden name?", "What is the make of {self}'s bicycle?",
        "Which mobile carrier does {self} use?", "How tall is {self}?", "What is {self}'s favourite cocktail?",
        "What did {self} name {their} houseboat?", "Which podcast host does {self} dislike?",
        "What musical instrument did {self}'s grandfather play?", "Where did {self} go to kindergarten?"};

    // ------------------------------------------------------------------------------------------------
    // small talk

    private static final String[] OPEN_A = {
        "Hey {other}! Long time no talk. How have you been?", "Hi {other}! Got a minute?",
        "{other}! Finally a quiet evening. How's life?", "Morning, {other}! Coffee in hand, ready to chat.",
        "Hey {other}, sorry it's been a while. Crazy few weeks.", "Hi {other}, how's your week going?",
        "{dayline} How are you, {other}?"};
    private static final String[] OPEN_B = {
        "Hey {other}! So good to hear from you. I'm alright, busy as usual.",
        "Hi {other}! Always. What's new with you?", "{other}! I was just thinking about you. All good here.",
        "Morning! Same here, second cup already, {other}.", "No worries at all, {other}. Tell me everything.",
        "Not bad at all, {other}, thanks for asking!"};
    private static final String[] DAYLINES = {"Happy {weekday}!", "Can you believe it's already {month}?",
        "Ugh, {weekday} again.", "Finally {weekday}!"};
    private static final String[] CLOSE_A = {
        "Anyway, I should get going. Talk soon, {other}!", "Okay, dinner's burning. Bye {other}!",
        "Thanks for listening, {other}. Catch you later.", "Gotta run, {other} — let's talk this week.",
        "Alright, bedtime for me. Night, {other}!"};
    private static final String[] CLOSE_B = {
        "Bye {other}, take care!", "Talk soon, {other}!", "Anytime, {other}. Good night!",
        "Sounds good, {other}. Have a great week!", "Sleep well, {other}!"};

    /** Small-talk exchanges: a line and its reply, with {other} for the addressee and {x} from the topic's pool. */
    private record Chat(String line, String reply, String... fills) {
    }

    private static final Chat[] CHATS = {
        new Chat("How was your weekend, {other}?", "Pretty quiet, {other}. We mostly {x}.",
            "stayed in and watched movies", "cleaned the garage", "went to the farmers market", "slept in",
            "had friends over for a barbecue", "visited my parents"),
        new Chat("The weather has been so {x} lately, {other}.", "Tell me about it, {other}. I've given up on planning anything.",
            "weird", "gloomy", "hot", "windy", "rainy", "unpredictable"),
        new Chat("Work has been {x}, honestly.", "Same here, {other}. Hang in there.",
            "non-stop meetings", "a total circus", "slow for once", "exhausting", "surprisingly fun"),
        new Chat("Did you watch the game last night, {other}?", "I caught the last {x}, {other}. What a finish!",
            "ten minutes", "quarter", "half", "few plays"),
        new Chat("I tried that new {x} place near the station, {other}.", "Ooh, was it good? I keep walking past it.",
            "taco", "noodle", "burger", "vegan", "pizza", "sushi"),
        new Chat("My neighbor's dog barked all night again, {other}.", "Ugh, {other}, that would drive me nuts.", ""),
        new Chat("Traffic this morning was {x}, {other}.", "That's why I leave at dawn, {other}!",
            "a nightmare", "insane", "backed up for miles", "weirdly empty"),
        new Chat("I'm thinking of repainting the living room, {other}. Maybe {x}.", "Bold! Send me pictures when it's done.",
            "sage green", "a warm white", "terracotta", "navy blue"),
        new Chat("Any good podcasts lately, {other}?", "I've been listening to one about {x}, {other}. Oddly addictive.",
            "true crime", "history", "space", "old sitcoms", "economics"),
        new Chat("I can never remember people's names at parties, {other}.", "Ha, same! I just say 'hey you'.", ""),
        new Chat("My phone screen cracked {x}, {other}.", "Nooo. Get a case this time!",
            "again", "this morning", "at the gym", "in the parking lot"),
        new Chat("Thanks for the advice last time, {other}, it really helped.", "Anytime, {other}! That's what friends are for.", ""),
        new Chat("Haha, you always know how to cheer me up, {other}.", "That's my job, {other}!", ""),
        new Chat("I've been drinking way too much coffee, {other}.", "Is there such a thing, {other}?", ""),
        new Chat("Did you see the news about the {x}, {other}?", "I did, {other}. Wild times.",
            "storm", "election", "strike", "new bridge", "heatwave"),
        new Chat("I need a vacation from my vacation, {other}.", "Haha, story of my life, {other}.", ""),
        new Chat("My mom keeps sending me recipes, {other}.", "That's adorable. Do you ever make them?", ""),
        new Chat("I finally cleaned out my closet, {other}.", "Feels good, right? I need to do mine.", ""),
        new Chat("The kids next door started a lemonade stand, {other}.", "Aww, did you buy some, {other}?", ""),
        new Chat("I'm so tired today, {other}. Barely slept.", "Oh no, {other}. Nap later?", ""),
        new Chat("Guess what I found in my old jacket, {other}? Twenty bucks!", "Best feeling ever, {other}!", ""),
        new Chat("Have you ever tried {x}, {other}?", "Once, {other}! I'd do it again.",
            "paddle boarding", "escape rooms", "karaoke", "a silent retreat", "axe throwing"),
        new Chat("I'm trying to eat healthier, {other}. Day {x}.", "You got this, {other}!", "two", "three", "five"),
        new Chat("My car needed a new battery, {other}, out of nowhere.", "Ugh, always at the worst time.", ""),
        new Chat("Work trip next week, {other}. Not excited.", "At least you'll get hotel breakfast, {other}!", ""),
        new Chat("Do you have a name for your plants, {other}? Mine are all called Steve.", "Ha! Mine are all Kevin.", ""),
        new Chat("I keep buying books and not reading them, {other}.", "There's a word for that, {other}! Tsundoku.", ""),
        new Chat("It's been a year since we started these chats, {other}, can you believe it?", "Time flies, {other}!", ""),
        new Chat("Do you remember our old teacher Mr. Price, {other}?", "Of course! He'd love that you asked.", ""),
        new Chat("You always have the best stories, {other}.", "Ha, thanks {other}! I just live a chaotic life.", ""),
        new Chat("What are you up to tonight, {other}?", "Nothing much, {other}. Maybe {x}.",
            "a movie", "takeout and bed", "a long walk", "video games", "calling my aunt"),
        new Chat("I started journaling again, {other}.", "That's great, {other}. Does it help?", ""),
        new Chat("The train was cancelled again, {other}.", "Public transport is a lottery, {other}.", ""),
        new Chat("I got a parking ticket, {other}. Forty dollars!", "Ouch, {other}. That stings.", ""),
        new Chat("Our building's elevator is broken again, {other}.", "Free workout, {other}!", ""),
        new Chat("I'm learning to cook {x}, {other}.", "Save me a plate, {other}!", "risotto", "curry", "paella", "dumplings")};

    /**
     * Sentences that real lines carry besides their point (people ramble): appended to small talk,
     * reactions and greetings, so a line is as long as in human chats and shares everyday words with
     * the questions now and then.
     */
    private static final String[] RAMBLE = {
        "I swear this week has lasted a month.", "My sister says I should write a blog about it.",
        "The neighbors are renovating again, so it's drills from eight a.m.", "I keep meaning to call you more often.",
        "Anyway, enough about me.", "It's funny how things work out sometimes.", "I've been trying to get more sleep, honestly.",
        "We should grab lunch when things calm down.", "My phone is at four percent, so bear with me.",
        "I laughed way too hard at that.", "Work has been eating all my free time lately.", "The kids say hi, by the way.",
        "I had the weirdest dream about our old school last night.", "I'm sitting on the balcony with a cup of tea.",
        "Can't believe how fast this year is going.", "I've been cooking a lot more at home to save money.",
        "The bus was late again this morning.", "I finally fixed the squeaky door, tiny victories.",
        "Mom called twice today, she's fine, just bored.", "I read an article about that yesterday, wild stuff.",
        "Honestly, I needed this chat.", "Remind me to tell you about my cousin's wedding drama sometime.",
        "It's been raining for three days straight here.", "I'm trying this new thing where I don't check email after six.",
        "Our team got a new manager and everyone is nervous.", "I spent way too long choosing a new backpack online.",
        "My knees are complaining about all the stairs at the office.", "We tried a new recipe last night and it flopped.",
        "There's a street festival downtown this weekend.", "I've started walking to work, it clears my head.",
        "The cat next door keeps visiting our garden.", "I'm still not over that finale, by the way.",
        "My to-do list is longer than my arm right now.", "I bumped into our old friend from college at the store.",
        "The heating in our building is broken, so I'm wearing two sweaters.", "My brother-in-law won't stop talking about crypto.",
        "We're thinking about repainting the kitchen.", "I signed up for a newsletter and now I get ten emails a day.",
        "It feels like everyone is getting married this year.", "I need to buy a birthday card for my colleague.",
        "The coffee machine at work finally got replaced.", "I've been listening to the same album on repeat.",
        "My plants are judging me for forgetting to water them.", "Did I mention the traffic is terrible on Fridays?",
        "I want to take a proper holiday at some point.", "Everything costs so much more than it used to.",
        "We had a power cut yesterday evening, candles everywhere.", "I keep losing my keys, it's becoming a problem.",
        "I've been trying to read before bed instead of scrolling.", "The weather app said sunny, and of course it poured."};

    private static String ramble(String line, Random random) {
        int extra = random.nextInt(100) < 70 ? 1 + random.nextInt(2) : 0;
        StringBuilder text = new StringBuilder(line);
        for (int i = 0; i < extra; i++) {
            text.append(' ').append(RAMBLE[random.nextInt(RAMBLE.length)]);
        }
        return text.toString();
    }

    /** The line that sets up a speaker B fact, asked by A. */
    private static final String[] LEAD_INS = {
        "So what's new with you, {other}?", "Anything exciting happening on your end, {other}?",
        "How are things with you, {other}?", "Tell me something good, {other}.", "What have you been up to, {other}?"};
    /** A's short prompt before B brings up some small talk. */
    private static final String[] PROMPTS = {
        "What's on your mind, {other}?", "Go on, {other}.", "Haha, what now, {other}?", "Okay, spill it, {other}.",
        "You look like you have a story, {other}.", "And how's your side of the world, {other}?"};
    /** A's small answer after B's reaction, when A stated a fact and the exchange goes on. */
    private static final String[] FOLLOW_UPS = {
        "Thanks, {other}, that means a lot!", "Haha, I know, right?", "You're the best, {other}.",
        "I'll keep you posted, {other}.", "Right? Still can't believe it."};

    // ------------------------------------------------------------------------------------------------
    // relative times

    private record When(String phrase, int days, String kind) {
    }

    /** kind: "day" resolves to a date, "week"/"weekend" to the week before the sitting, "month" to the month before. */
    private static final When[] WHENS = {
        new When("yesterday", 1, "day"), new When("this morning", 0, "day"), new When("today", 0, "day"),
        new When("two days ago", 2, "day"), new When("last weekend", 0, "weekend"), new When("last week", 0, "week"),
        new When("last month", 0, "month"), new When("last Saturday", -1, "weekday"), new When("last Friday", -2, "weekday"),
        new When("a few days ago", 0, "week")};

    /** The answer a temporal question accepts: the date (or month) the phrase means, as "7 May 2023". */
    static String resolve(When when, LocalDate day) {
        switch (when.kind()) {
            case "day":
                return DAY.format(day.minusDays(when.days()));
            case "weekday": {
                DayOfWeek target = when.days() == -1 ? DayOfWeek.SATURDAY : DayOfWeek.FRIDAY;
                return DAY.format(day.with(TemporalAdjusters.previous(target)));
            }
            case "month":
                return MONTH.format(day.minusMonths(1));
            default:
                return DAY.format(day); // "the week before 8 May 2023": the sitting's date
        }
    }

    // ------------------------------------------------------------------------------------------------
    // generation

    /** One fact as placed in the conversation. */
    private static final class Placed {
        final FactType type;
        final boolean byA;
        final String[] slots;
        final int sitting;
        final When when;
        final boolean update;
        final String old;
        int line = -1;
        String answerDate;

        Placed(FactType type, boolean byA, String[] slots, int sitting, When when, boolean update, String old) {
            this.type = type;
            this.byA = byA;
            this.slots = slots;
            this.sitting = sitting;
            this.when = when;
            this.update = update;
            this.old = old;
        }
    }

    /**
     * Generates a conversation.
     *
     * @param seed any seed; the same seed gives the same conversation
     * @return the conversation with its questions
     */
    public static SittingsConversation generate(long seed) {
        Random random = new Random(seed * 7919 + 17);
        List<Person> people = new ArrayList<>(List.of(PEOPLE));
        Collections.shuffle(people, random);
        Person a = people.get(0);
        Person b = people.get(1);
        int sittings = 20 + random.nextInt(13);

        // which facts, by whom, when
        List<Placed> placed = new ArrayList<>();
        Map<String, Set<Integer>> usedValues = new LinkedHashMap<>();
        for (FactType type : FACTS) {
            for (boolean byA : new boolean[] {true, false}) {
                if (!byA && random.nextInt(100) < 45) {
                    continue; // B shares fewer facts of a kind: questions about B's missing ones are unanswerable
                }
                if (byA && random.nextInt(100) < 12) {
                    continue;
                }
                int count = AGGREGATES.containsKey(type.id()) && random.nextBoolean() ? 2 + random.nextInt(2) : 1;
                List<Integer> sittingsOf = distinctSittings(random, sittings, count);
                for (int sitting : sittingsOf) {
                    String[] slots = pick(random, type, usedValues);
                    When when = type.event() ? WHENS[random.nextInt(WHENS.length)] : null;
                    Placed fact = new Placed(type, byA, slots, sitting, when, false, null);
                    placed.add(fact);
                    if (type.updates() != null && count == 1 && sitting < sittings - 2 && random.nextInt(100) < 60) {
                        int later = sitting + 1 + random.nextInt(sittings - sitting - 1);
                        placed.add(new Placed(type, byA, pick(random, type, usedValues), later,
                                WHENS[random.nextInt(WHENS.length)], true, slots[0]));
                    }
                }
            }
        }

        // sitting dates: weeks apart, at a time of day
        List<ZonedDateTime> starts = new ArrayList<>();
        ZonedDateTime start = ZonedDateTime.of(2023, 1 + random.nextInt(4), 1 + random.nextInt(27), 9, 0, 0, 0,
                ZoneOffset.UTC);
        for (int s = 0; s < sittings; s++) {
            start = start.plusDays(s == 0 ? 0 : 3 + random.nextInt(20));
            starts.add(start.withHour(8 + random.nextInt(13)).withMinute(random.nextInt(60)));
        }

        // the lines
        List<Line> lines = new ArrayList<>();
        List<List<Placed>> bySitting = new ArrayList<>();
        for (int s = 0; s < sittings; s++) {
            bySitting.add(new ArrayList<>());
        }
        for (Placed fact : placed) {
            bySitting.get(fact.sitting).add(fact);
        }
        int chatIndex = random.nextInt(CHATS.length);
        for (int s = 0; s < sittings; s++) {
            ZonedDateTime at = starts.get(s);
            List<Placed> here = bySitting.get(s);
            Collections.shuffle(here, random);
            int exchanges = Math.max(here.size() + 4, 9 + random.nextInt(7));
            // where the facts go among the small talk
            List<Integer> slotsForFacts = new ArrayList<>();
            for (int i = 1; i < exchanges - 1; i++) {
                slotsForFacts.add(i);
            }
            Collections.shuffle(slotsForFacts, random);
            Map<Integer, Placed> factAt = new LinkedHashMap<>();
            for (int i = 0; i < here.size(); i++) {
                factAt.put(slotsForFacts.get(i), here.get(i));
            }
            Clock clock = new Clock(at, random);
            for (int e = 0; e < exchanges; e++) {
                if (e == 0) {
                    String open = fill(OPEN_A[random.nextInt(OPEN_A.length)], b.name(), random, at);
                    lines.add(new Line(s, true, ramble(open, random), clock.next()));
                    lines.add(new Line(s, false, ramble(fill(OPEN_B[random.nextInt(OPEN_B.length)], a.name(), random, at),
                            random), clock.next()));
                } else if (e == exchanges - 1) {
                    lines.add(new Line(s, true, fill(CLOSE_A[random.nextInt(CLOSE_A.length)], b.name(), random, at),
                            clock.next()));
                    lines.add(new Line(s, false, fill(CLOSE_B[random.nextInt(CLOSE_B.length)], a.name(), random, at),
                            clock.next()));
                } else if (factAt.containsKey(e)) {
                    Placed fact = factAt.get(e);
                    Person self = fact.byA ? a : b;
                    Person other = fact.byA ? b : a;
                    String statement = statement(fact, other, random);
                    String reaction = fill(fact.type.reactions()[random.nextInt(fact.type.reactions().length)],
                            self.name(), random, at);
                    if (random.nextInt(100) < 50) {
                        reaction = addName(reaction, self.name(), random);
                    }
                    reaction = ramble(reaction, random);
                    fact.answerDate = fact.when == null ? null : resolve(fact.when, at.toLocalDate());
                    if (fact.byA) {
                        fact.line = lines.size();
                        lines.add(new Line(s, true, passing(statement, random, random.nextInt(100) < 40), clock.next()));
                        lines.add(new Line(s, false, reaction, clock.next()));
                    } else {
                        lines.add(new Line(s, true, fill(LEAD_INS[random.nextInt(LEAD_INS.length)], b.name(), random, at),
                                clock.next()));
                        fact.line = lines.size();
                        lines.add(new Line(s, false, passing(statement, random, random.nextInt(100) < 40), clock.next()));
                        // A reacts, B answers with small talk
                        lines.add(new Line(s, true, reaction, clock.next()));
                        lines.add(new Line(s, false, fill(FOLLOW_UPS[random.nextInt(FOLLOW_UPS.length)], a.name(),
                                random, at), clock.next()));
                    }
                } else {
                    Chat chat = CHATS[chatIndex++ % CHATS.length];
                    if (random.nextInt(4) == 0) {
                        chatIndex += random.nextInt(CHATS.length);
                    }
                    String x = chat.fills()[random.nextInt(chat.fills().length)];
                    boolean aStarts = random.nextInt(100) < 70;
                    if (aStarts) {
                        lines.add(new Line(s, true, ramble(fill(chat.line(), b.name(), random, at).replace("{x}", x),
                                random), clock.next()));
                        lines.add(new Line(s, false, ramble(fill(chat.reply(), a.name(), random, at).replace("{x}", x),
                                random), clock.next()));
                    } else {
                        // B brings it up: A's line is a short prompt, B says it, and A answers next time round
                        lines.add(new Line(s, true, fill(PROMPTS[random.nextInt(PROMPTS.length)], b.name(),
                                random, at), clock.next()));
                        lines.add(new Line(s, false, ramble(fill(chat.line(), a.name(), random, at).replace("{x}", x),
                                random), clock.next()));
                    }
                }
            }
        }

        List<Question> questions = questions(random, placed, a, b, sittings);
        return new SittingsConversation(seed, a.name(), b.name(), lines, questions, sittings, placed.size());
    }

    /** Times of a sitting's lines: a minute or two apart. */
    private static final class Clock {
        private ZonedDateTime at;
        private final Random random;

        Clock(ZonedDateTime at, Random random) {
            this.at = at;
            this.random = random;
        }

        Instant next() {
            Instant now = at.toInstant();
            at = at.plus(Duration.ofSeconds(30 + random.nextInt(150)));
            return now;
        }
    }

    private static List<Integer> distinctSittings(Random random, int sittings, int count) {
        List<Integer> all = new ArrayList<>();
        for (int s = 0; s < sittings; s++) {
            all.add(s);
        }
        Collections.shuffle(all, random);
        List<Integer> chosen = new ArrayList<>(all.subList(0, count));
        Collections.sort(chosen);
        return chosen;
    }

    private static String[] pick(Random random, FactType type, Map<String, Set<Integer>> used) {
        Set<Integer> taken = used.computeIfAbsent(type.id(), k -> new HashSet<>());
        int i;
        do {
            i = random.nextInt(type.values().length);
        } while (taken.contains(i) && taken.size() < type.values().length);
        taken.add(i);
        return type.values()[i].split("\\|");
    }

    private static String statement(Placed fact, Person other, Random random) {
        String[] pool = fact.update ? fact.type.updates() : fact.type.statements();
        String text = pool[random.nextInt(pool.length)];
        text = text.replace("{when}", fact.when == null ? "" : fact.when.phrase()).replace("{other}", other.name());
        if (fact.old != null) {
            text = text.replace("{old}", fact.old);
        }
        for (int i = 0; i < fact.slots.length; i++) {
            text = text.replace("{" + i + "}", fact.slots[i]);
        }
        text = text.replace("  ", " ").replace(" ,", ",").replace(" .", ".").replace(" —", " —").strip();
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    private static final Set<String> LOWERABLE = Set.of("So", "We", "My", "Big", "Guess", "Yesterday", "This", "Today",
            "Two", "Last", "A", "Starting", "Sorry", "Reading", "Nothing", "Honestly", "When", "Can", "Ugh", "Ever",
            "Every", "No", "Our", "The", "Crossed", "Have", "Stayed", "Skipping", "Missing", "Plans", "Surprise",
            "Career", "Quick", "Update", "Remember", "It", "Look", "Best", "Bad", "Spent", "You", "Don");

    /** A fact said in passing: now and then wrapped in small talk. */
    private static String passing(String statement, Random random, boolean rambling) {
        String[] before = {"", "", "Oh, by the way — ", "Anyway, ", "Random thing, but ", "So, news: ", ""};
        String[] after = {"", "", " How about you?", " Crazy, right?", " Anyway, how's your day going?", ""};
        String lead = before[random.nextInt(before.length)];
        String first = statement.split("[ ,'!]", 2)[0];
        // a lead-in only before a word that can go lower case (not "I", not a name or a photo)
        boolean lowerable = !statement.startsWith("[") && !first.equals("I") && LOWERABLE.contains(first);
        String body = lead.isEmpty() || !lowerable ? statement
                : lead + Character.toLowerCase(statement.charAt(0)) + statement.substring(1);
        body = body + after[random.nextInt(after.length)];
        // in passing: now and then between other sentences
        return rambling ? RAMBLE[random.nextInt(RAMBLE.length)] + " " + ramble(body, random) : body;
    }

    private static String addName(String line, String name, Random random) {
        if (line.contains(name)) {
            return line;
        }
        return random.nextBoolean() ? name + ", " + Character.toLowerCase(line.charAt(0)) + line.substring(1)
                : line.replaceFirst("([.!?])$", ", " + name + "$1");
    }

    private static String fill(String template, String other, Random random, ZonedDateTime at) {
        String day = DAYLINES[random.nextInt(DAYLINES.length)]
                .replace("{weekday}", at.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH))
                .replace("{month}", at.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
        return template.replace("{other}", other).replace("{dayline}", day);
    }

    // ------------------------------------------------------------------------------------------------
    // questions

    private static List<Question> questions(Random random, List<Placed> placed, Person a, Person b, int sittings) {
        List<Question> out = new ArrayList<>();
        // the newest statement of each (type, speaker) for facts that are single: an update supersedes
        Map<String, List<Placed>> byKey = new LinkedHashMap<>();
        for (Placed fact : placed) {
            byKey.computeIfAbsent(fact.type.id() + (fact.byA ? ":a" : ":b"), k -> new ArrayList<>()).add(fact);
        }
        for (Map.Entry<String, List<Placed>> entry : byKey.entrySet()) {
            List<Placed> facts = entry.getValue();
            facts.sort((x, y) -> Integer.compare(x.line, y.line));
            FactType type = facts.get(0).type;
            Person self = facts.get(0).byA ? a : b;
            Person other = facts.get(0).byA ? b : a;
            boolean aggregate = facts.size() > 1 && !facts.get(facts.size() - 1).update;
            if (aggregate) {
                String[] pool = AGGREGATES.get(type.id());
                List<Integer> evidence = new ArrayList<>();
                List<String> answers = new ArrayList<>();
                int oldest = Integer.MAX_VALUE;
                for (Placed fact : facts) {
                    evidence.add(fact.line);
                    answers.add(fact.slots[type.id().equals("craft") ? 1 : 0]);
                    oldest = Math.min(oldest, fact.sitting);
                }
                out.add(new Question(QuestionKind.MULTI_HOP, person(pool[random.nextInt(pool.length)], self, other),
                        evidence, answers, oldest));
            }
            for (Placed fact : facts) {
                if (aggregate && !facts.isEmpty() && fact != facts.get(facts.size() - 1) && random.nextBoolean()) {
                    continue;
                }
                if (!aggregate && fact != facts.get(facts.size() - 1)) {
                    continue; // superseded by its update: asked about the newest value only
                }
                for (Ask ask : type.asks()) {
                    if (ask.kind() == SINGLE && aggregate) {
                        continue; // ambiguous with several of a kind
                    }
                    if (ask.kind() == TEMPORAL && (fact.when == null || random.nextInt(100) < 25)) {
                        continue;
                    }
                    if (ask.kind() == SINGLE && type.asks().length > 1 && ask != type.asks()[0] && random.nextInt(100) < 25) {
                        continue; // not every slot of every fact
                    }
                    String phrasing = ask.phrasings()[random.nextInt(ask.phrasings().length)];
                    String text = slots(person(phrasing, self, other), fact.slots);
                    String answer = ask.answer().equals("{date}") ? fact.answerDate : slots(ask.answer(), fact.slots);
                    out.add(new Question(ask.kind(), text, List.of(fact.line), List.of(answer), fact.sitting));
                }
            }
        }
        // multi-hop across kinds: two facts of one speaker from different sittings
        for (Person self : new Person[] {a, b}) {
            Person other = self == a ? b : a;
            boolean byA = self == a;
            Placed move = newest(placed, "move", byA);
            Placed job = newest(placed, "job", byA);
            Placed pet = newest(placed, "pet", byA);
            Placed kid = newest(placed, "kid", byA);
            Placed allergy = newest(placed, "allergy", byA);
            Placed sibling = newest(placed, "sibling", byA);
            if (move != null && job != null && move.sitting != job.sitting) {
                out.add(pair(self, other, move, job, List.of(move.slots[0], job.slots[1]),
                        "In which city does {self} live now, and what is {their} line of work?"));
            }
            if (pet != null && kid != null && pet.sitting != kid.sitting) {
                out.add(pair(self, other, pet, kid, List.of(pet.slots[1], kid.slots[1]),
                        "What are the names of {self}'s child and of {their} animal?"));
            }
            if (allergy != null && sibling != null && allergy.sitting != sibling.sitting) {
                out.add(pair(self, other, allergy, sibling, List.of(allergy.slots[1], sibling.slots[2]),
                        "If {self} visits {their} sibling, which city will {they} fly to, and what must the host leave out of dinner?"));
            }
            Placed race = newest(placed, "race", byA);
            Placed injury = newest(placed, "injury", byA);
            if (race != null && injury != null && race.sitting != injury.sitting) {
                // the answer is the order of the two: both lines are what answers it
                out.add(pair(self, other, race, injury, List.of(),
                        "Which came first for {self}: the {1} or the injury to {their} {3}?"
                                .replace("{1}", race.slots[1]).replace("{3}", injury.slots[1])));
            }
        }
        // unanswerable: the other speaker's fact, and topics never raised
        for (Person self : new Person[] {a, b}) {
            Person other = self == a ? b : a;
            boolean byA = self == a;
            for (FactType type : FACTS) {
                boolean mine = newest(placed, type.id(), byA) != null;
                boolean theirs = newest(placed, type.id(), !byA) != null;
                if (!mine && theirs && random.nextInt(100) < 55) {
                    Ask ask = type.asks()[0];
                    String phrasing = ask.phrasings()[random.nextInt(ask.phrasings().length)];
                    out.add(new Question(QuestionKind.UNANSWERABLE, person(phrasing, self, other), List.of(), List.of(), -1));
                }
            }
            List<String> never = new ArrayList<>(List.of(NEVER_SAID));
            Collections.shuffle(never, random);
            for (int i = 0; i < 7; i++) {
                out.add(new Question(QuestionKind.UNANSWERABLE, person(never.get(i), self, other), List.of(), List.of(), -1));
            }
        }
        Collections.shuffle(out, random);
        return out;
    }

    private static Question pair(Person self, Person other, Placed x, Placed y, List<String> answers, String text) {
        return new Question(QuestionKind.MULTI_HOP, person(text, self, other), List.of(x.line, y.line), answers,
                Math.min(x.sitting, y.sitting));
    }

    private static Placed newest(List<Placed> placed, String type, boolean byA) {
        Placed newest = null;
        for (Placed fact : placed) {
            if (fact.type.id().equals(type) && fact.byA == byA && (newest == null || fact.line > newest.line)) {
                newest = fact;
            }
        }
        return newest;
    }

    private static String person(String text, Person self, Person other) {
        return text.replace("{self}", self.name()).replace("{they}", self.they()).replace("{them}", self.them())
                .replace("{their}", self.their()).replace("{other}", other.name());
    }

    private static String slots(String text, String[] slots) {
        for (int i = 0; i < slots.length; i++) {
            text = text.replace("{" + i + "}", slots[i]);
        }
        return text;
    }
}
