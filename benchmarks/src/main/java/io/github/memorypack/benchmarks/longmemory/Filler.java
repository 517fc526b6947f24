package io.github.memorypack.benchmarks.longmemory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Everyday turns between the planted facts: questions on common topics (travel, food, fitness, money,
 * work, home…, so their words overlap with the facts' words now and then) and assistant answers of a
 * realistic length, assembled from each topic's sentences in a seeded order.
 */
final class Filler {

    // topic | questions (" || ") | answer sentences (" || ")
    private static final String TOPICS = """
            travel | Any tips for packing light for a week away? || How do I avoid jet lag on a long flight? || What should I check before booking a hotel? | Pack clothes you can layer and wear more than once. || Roll your clothes instead of folding them, it saves space and reduces creases. || Keep liquids in a small clear bag so security checks go quickly. || On long flights drink plenty of water and move around every hour or two. || Adjust your sleep by an hour a day before you leave if you can. || Read recent reviews and look at the location on a map before you book. || Check the cancellation policy; flexible rates are often worth a few euros more.
            cooking | How do I make a simple tomato sauce? || What's the trick to crispy roast potatoes? || How long do I boil an egg for a runny yolk? | Start with good olive oil, garlic and tinned tomatoes. || Let the sauce simmer gently for at least twenty minutes so it thickens. || Season at the end, and a pinch of sugar can balance acidity. || Parboil the potatoes, shake them in the pot to rough up the edges, then roast them hot. || Use plenty of fat and do not crowd the tray. || For a runny yolk, six minutes in boiling water and then straight into cold water works well. || Fresh herbs added just before serving lift almost any dish.
            fitness | How can I build a habit of exercising? || What is a good warm-up before lifting weights? || How many rest days should I take per week? | Start small: ten minutes a day is better than an ambitious plan you abandon. || Schedule workouts like appointments and put them in your calendar. || A warm-up of light cardio followed by a few lighter sets prepares your muscles. || Most people do well with one or two rest days a week. || Listen to your body; soreness is normal, sharp pain is not. || Sleep and protein matter as much as the training itself. || Track your progress so you can see improvement over weeks.
            money | How do I start budgeting? || Is it better to pay off debt or save first? || What is an emergency fund? | Write down what you earn and what you spend for a month. || Sort your spending into needs, wants and savings. || An emergency fund covers three to six months of essential expenses. || Pay off high-interest debt first, but keep a small cushion for surprises. || Automate transfers to savings on payday so you do not forget. || Review subscriptions regularly; small monthly costs add up. || Spreadsheets or simple apps both work; consistency matters more than the tool.
            work | How do I run a good meeting? || Any advice for giving feedback to a colleague? || How can I stop procrastinating? | Send an agenda in advance and state the goal of the meeting. || Keep the meeting short and end with clear action items and owners. || When giving feedback, describe the behaviour and its effect, not the person. || Ask questions and listen before suggesting solutions. || Break big tasks into small steps and start with the easiest one. || Use a timer and work in focused blocks with short breaks. || Turn off notifications while you concentrate.
            home | How do I get rid of mould in the bathroom? || What's the best way to organise a small kitchen? || How can I make my flat warmer in winter? | Ventilate the room after every shower and wipe down wet surfaces. || A mix of water and vinegar removes light mould; stubborn spots need a specialised cleaner. || Use vertical space in a small kitchen: shelves, hooks and magnetic strips. || Keep only the tools you actually use within reach. || Draught excluders and thick curtains keep a lot of heat in. || Bleed the radiators so they heat evenly. || Rugs on cold floors make a room feel warmer straight away.
            gardening | When should I plant tomatoes? || How do I get rid of aphids naturally? || What vegetables are easy for beginners? | Plant tomatoes outside after the last frost, when nights stay above ten degrees. || Give them a sunny spot and water at the base, not on the leaves. || Spray aphids off with water or use a mild soap solution. || Ladybirds are natural predators and very welcome in the garden. || Radishes, lettuce, courgettes and beans are forgiving for beginners. || Mulch helps the soil keep its moisture during hot weeks.
            technology | How do I back up my phone? || What makes a strong password? || Why is my laptop so slow? | Turn on automatic cloud backups and check that they actually run. || Keep a second copy of important photos on an external drive. || A long passphrase of several random words is stronger than a short complex password. || Use a password manager so you do not reuse passwords. || A slow laptop often has too many programs starting at boot. || Check free disk space and update the operating system. || Restarting once in a while clears memory leaks from long-running apps.
            language | What's the best way to learn Spanish? || How do I memorise vocabulary? || Is it worth getting a language tutor? | Daily practice beats long weekly sessions. || Spaced repetition apps help vocabulary stick. || Listen to podcasts and music in the language to train your ear. || Speak from the start, even if you make mistakes. || A tutor gives you feedback and keeps you accountable. || Learn phrases, not only single words, so you can use them right away.
            sleep | Why do I wake up tired? || Is napping good or bad? || How much caffeine is too much? | Waking up tired can come from irregular sleep times or poor sleep quality. || Keep the bedroom dark, quiet and cool. || A short nap of twenty minutes can refresh you without grogginess. || Long naps late in the afternoon can make it harder to fall asleep at night. || Most adults are fine with up to four hundred milligrams of caffeine a day. || Avoid coffee in the six hours before bed.
            books | Can you recommend a good mystery novel? || How do I read more books? || What are audiobooks good for? | Classic mysteries with a clever detective are a great place to start. || Carry a book with you and read in small gaps during the day. || Set a modest goal, like twenty pages a day. || Audiobooks are great for commuting, chores and long walks. || Library apps let you borrow e-books and audiobooks for free. || It is fine to stop reading a book you do not enjoy.
            parenting | How do I get my toddler to sleep? || How much screen time is OK for kids? || How can I help my child with homework? | A consistent bedtime routine helps toddlers wind down. || Dim the lights and keep the last hour calm. || Guidelines suggest limited, high-quality screen time for young children. || Watch together when you can and talk about what you see. || For homework, offer a quiet spot and a regular time. || Help with questions, but let the child do the work.
            pets | How often should I walk a dog? || Why does my cat scratch the sofa? || What should I feed a rabbit? | Most dogs need at least two walks a day, more for active breeds. || Scratching is normal for cats; give them a scratching post near the sofa. || Reward the cat when it uses the post. || Rabbits mainly need hay, plus fresh greens and a few pellets. || Fresh water should always be available. || Regular vet check-ups catch problems early.
            health | How much water should I drink a day? || What helps with a tension headache? || How do I sit properly at a desk? | Around two litres a day is a common guideline, more when it is hot. || Tension headaches often improve with rest, water and a short walk. || Check your posture: screen at eye level, feet flat on the floor. || Take a short break every hour to stretch. || See a doctor if headaches are frequent or severe. || A chair with good lower back support makes a big difference.
            cars | How often should I change the oil? || Why is my tyre pressure light on? || Is an electric car worth it? | Many modern cars need an oil change every fifteen thousand kilometres or once a year. || Check your manual, since intervals vary by engine. || The tyre pressure light means at least one tyre is under-inflated. || Cold weather lowers tyre pressure, so check it in winter. || Electric cars are cheap to run if you can charge at home. || Consider your daily distance and access to chargers.
            weather | Why is it so windy today? || How do I read a weather forecast? || What's the difference between weather and climate? | Wind comes from differences in air pressure between regions. || Look at the chance of rain together with the expected amount. || Wind speed and direction matter for cycling and outdoor plans. || Weather is what happens over days; climate is the pattern over decades. || Local forecasts are most reliable for the next two or three days.
            music | How do I start learning guitar? || What's a good way to practise an instrument? || How can I find new music I like? | Start with a few basic chords and simple songs. || Practise a little every day rather than for hours once a week. || Use a metronome to build steady timing. || Record yourself to hear what to improve. || Streaming services suggest new music based on what you play. || Live concerts are a great way to discover local artists.
            films | What's a good film for a rainy Sunday? || How do I choose a movie everyone likes? || Are old films worth watching? | A cosy comedy or an adventure film suits a rainy afternoon. || Let everyone suggest one film and vote. || Old films often have great stories and craft. || Watching with subtitles helps with foreign films. || Review sites help when you are undecided.
            shopping | How do I stop impulse buying? || When are the best times to buy electronics? || Is it worth buying refurbished? | Wait twenty-four hours before buying anything not on your list. || Unsubscribe from promotional emails. || Electronics are often cheaper during seasonal sales. || Refurbished devices can be great value with a warranty. || Compare prices across a few shops before you decide.
            cleaning | How do I clean an oven without harsh chemicals? || What's a weekly cleaning routine? || How do I remove limescale from a kettle? | A paste of baking soda and water, left overnight, loosens baked-on grease. || Wipe it off with a damp cloth and a little vinegar. || Split cleaning into small daily tasks so it never piles up. || Boil water with a splash of vinegar or citric acid to remove limescale. || Rinse the kettle well afterwards.
            productivity | How do I plan my week? || Are to-do lists useful? || How do I deal with too many emails? | On Sunday, list your priorities for the week. || Block time in your calendar for important work. || To-do lists help, but keep them short and realistic. || Process emails at fixed times instead of constantly. || Archive or delete what needs no action. || Use short replies; not every email needs a long answer.
            science | Why do leaves change colour in autumn? || How do vaccines work? || Why is the ocean salty? | In autumn, trees stop producing chlorophyll, revealing yellow and orange pigments. || Vaccines train the immune system to recognise a germ without causing the disease. || The ocean is salty because rivers carry dissolved minerals into it. || Evaporation leaves the salt behind. || Science is a process of testing ideas against evidence.
            history | Why did the Roman Empire fall? || When was the printing press invented? || What started the industrial revolution? | Historians point to many causes: economic trouble, overstretch and political instability. || Gutenberg's printing press appeared in the fifteenth century. || It made books far cheaper and spread ideas quickly. || The industrial revolution began with new machines, coal power and factories. || Each of these changes unfolded over decades.
            hobbies | What's a relaxing hobby? || How do I get started with photography? || Is knitting hard to learn? | Drawing, gardening and puzzles are calming hobbies. || For photography, start with your phone and learn about light and composition. || Take many pictures and review what works. || Knitting takes a little practice, but beginner projects like scarves are easy. || Online videos are a good way to learn the first stitches.
            """;

    record Topic(String name, List<String> questions, List<String> sentences) {
    }

    private final List<Topic> topics = new ArrayList<>();
    private final Random random;

    Filler(Random random) {
        this.random = random;
        for (String line : TOPICS.strip().split("\n")) {
            String[] columns = line.split(" \\| ");
            topics.add(new Topic(columns[0].strip(), List.of(columns[1].strip().split(" \\|\\| ")),
                    List.of(columns[2].strip().split(" \\|\\| "))));
        }
    }

    /** A filler turn: {user question, assistant answer} of 3–6 of the topic's sentences. */
    String[] next(int counter) {
        Topic topic = topics.get(random.nextInt(topics.size()));
        String question = topic.questions().get(random.nextInt(topic.questions().size()));
        List<String> sentences = new ArrayList<>(topic.sentences());
        Collections.shuffle(sentences, random);
        int count = 3 + random.nextInt(Math.min(4, sentences.size() - 2));
        String opener = OPENERS[random.nextInt(OPENERS.length)];
        String answer = opener + " " + String.join(" ", sentences.subList(0, count));
        // a counter keeps repeated questions distinct turns, as they would be in a real log
        return new String[] {counter % 3 == 0 ? question : question + " " + FOLLOW_UPS[counter % FOLLOW_UPS.length], answer};
    }

    private static final String[] OPENERS = {"Good question.", "Sure.", "Here are a few ideas.", "Happy to help.",
            "That depends a little, but generally:", "A few things help here."};
    private static final String[] FOLLOW_UPS = {"Keep it short please.", "I'm curious.", "Asking for a friend.",
            "Thanks in advance.", "I was wondering about this today.", "Just a quick one."};
}
