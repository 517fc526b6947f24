package io.github.memorypack.benchmarks.longmemory;

import java.util.ArrayList;
import java.util.List;

/**
 * The subjects facts are planted about: for each, a kind, ways of stating it, ways of asking about it
 * (reworded: about half share no content word with any statement but the value's subject, some share
 * none at all) and the values it can take. {@code {v}} stands for the value. A subject with an update
 * template can change later in a conversation; the newer value wins.
 */
final class FactTable {

    /** The kinds of planted facts. */
    enum Kind { NAME, DATE, NUMBER, PREFERENCE, EVENT }

    /** One subject: kind, statements, questions, values, and an update statement ({@code null} if it never changes). */
    record Subject(Kind kind, List<String> statements, List<String> questions, List<String> values, String update) {
    }

    // kind | statements (" || ") | questions (" || ") | values (";") | update statement (optional)
    private static final String TABLE = """
            NAME | By the way, my sister is called {v}. || My sister {v} phoned me this morning. | What's my sister's first name? || Remind me what my female sibling is called. | Ingrid;Marta;Yasmin;Helga
            NAME | My manager at work is {v}, she's quite strict. || I had a one-to-one with {v}, my manager, today. | Who is my boss? || What is the name of the person I report to? | Clarissa;Beatrix;Oonagh;Philippa
            NAME | Our dog is a beagle named {v}. || I walked {v}, our beagle, in the rain today. | What's our pet called? || What name did we give the puppy? | Biscuit;Pepper;Waffles;Nugget
            NAME | My dentist is Dr. {v}. || Dr. {v} looks after my teeth. | Who takes care of my teeth? || Which doctor do I see for a toothache? | Varga;Okonkwo;Lindqvist;Moreau
            NAME | My neighbour {v} lends me his ladder sometimes. || {v} from next door fixed our fence. | Who lives next door to me? || What's the name of the guy across the fence? | Gunther;Rafferty;Ezekiel;Horatio
            NAME | My piano teacher is {v}. || I have a lesson with {v}, who teaches me piano, on Fridays. | Who gives me music lessons? || Remind me who my keyboard instructor is. | Svetlana;Ottilie;Rosalind;Henrietta
            NAME | My best friend from school is {v}. || {v}, my oldest friend, is visiting next month. | Who is my closest friend? || What's the name of my buddy from childhood? | Benedikt;Cormac;Leopold;Thaddeus
            NAME | Our landlord is a man called {v}. || The landlord, {v}, raised the rent again. | Who do we rent the flat from? || What's the name of the owner of our apartment? | Mortimer;Ignatius;Barnaby;Cuthbert
            NAME | My cousin {v} just had a baby. || {v}, my cousin, is getting married in Spain. | Which relative of mine had news recently? || What is my cousin's name? | Anneliese;Genoveva;Rosamund;Theodora
            NAME | My colleague {v} sits next to me and hums all day. || {v} from the desk beside mine brought cake today. | Who sits beside me at the office? || Which coworker has the desk next to mine? | Fitzgerald;Lysander;Ptolemy;Evander
            NAME | Our cat is called {v}. || {v}, our cat, knocked over the plant again. | What is the kitten's name? || What do we call our feline? | Miso;Tofu;Mochi;Pistachio
            NAME | My physiotherapist is {v}. || {v} gave me new exercises for my knee. | Who treats my knee injury? || Who is helping me rehabilitate my leg? | Gwendolyn;Esmeralda;Persephone;Clementine
            NAME | My daughter's teacher is Mr. {v}. || Mr. {v}, who teaches my daughter, wants a meeting. | Who is my kid's schoolteacher? || Which teacher wanted to see me about my girl? | Abernathy;Pemberton;Quimby;Whitlock
            NAME | My accountant is {v}. || {v} is doing my taxes this year. | Who handles my tax return? || Who is the person sorting out my finances for the revenue office? | Ferdinand;Augustin;Casimir;Maximilian
            NAME | My grandmother's name is {v}. || Grandma {v} turns ninety soon. | What is my granny called? || What's the name of my father's mother? | Wilhelmina;Gertrude;Mathilde;Euphemia
            NAME | My running coach is {v}. || {v}, who coaches my running, changed my plan. | Who trains me for races? || Who is behind my jogging programme? | Desmond;Alaric;Florian;Crispin
            NAME | I named my sourdough starter {v}. || {v}, my sourdough starter, is bubbling nicely. | What did I call the thing I bake bread with? || What's the name of my bread yeast culture? | Doughbert;Breadley;Crumbella;Yeastopher
            NAME | The plumber who came is called {v}. || {v} the plumber fixed the leak under the sink. | Who repaired our pipes? || Which tradesman sorted the water leak? | Osvaldo;Reginald;Wolfram;Ambrose
            NAME | My therapist is {v}. || I talked to {v}, my therapist, about work stress. | Who do I see about my mental health? || Who is my counsellor? | Imogen;Octavia;Seraphina;Philomena
            NAME | My brother-in-law is {v}. || {v}, my sister's husband, is a pilot. | Who is married to my sister? || What's the name of my sibling's spouse? | Bartholomew;Leofric;Aurelio;Caspian
            NAME | My mechanic is {v}. || {v} at the garage says my brakes are worn. | Who services my car? || Which garage person looks after my vehicle? | Rutger;Dashiell;Eamon;Lorcan
            NAME | My goddaughter is {v}. || {v}, my goddaughter, starts school soon. | Who is my godchild? || What's the name of the little girl I'm godmother to? | Annabeth;Clodagh;Saoirse;Isolde
            DATE | My dentist appointment is on {v}. || Don't let me forget the dentist on {v}. | When do I need to get my teeth checked? || What day is my dental checkup? | March 14;April 3;May 22;June 9 | Update: the dentist moved my appointment to {v}.
            DATE | My flight to Lisbon leaves on {v}. || I'm flying to Lisbon on {v}. | When is my trip to Portugal? || What date do I travel to the Portuguese capital? | July 18;August 2;September 11;October 5 | Change of plans: the Lisbon flight is now on {v}.
            DATE | My mother's birthday is on {v}. || Mum turns sixty on {v}. | When was my mom born? || What day should I call my mum to celebrate? | January 27;February 19;November 30;December 8
            DATE | My job interview is on {v}. || The interview with the bank is on {v}. | When am I meeting the hiring panel? || What date is the recruitment meeting? | May 6;May 13;June 17;June 24 | The interview got rescheduled to {v}.
            DATE | The car inspection is due on {v}. || My car has its inspection on {v}. | When does my vehicle need its roadworthiness test? || What's the deadline for the MOT? | March 31;April 30;September 30;October 31
            DATE | Our wedding anniversary is on {v}. || We got married on {v}. | When did my spouse and I tie the knot? || What date should I book a romantic dinner for? | June 21;July 4;August 15;September 2
            DATE | The tax return deadline for me is {v}. || I must file my taxes by {v}. | When is my paperwork for the revenue office due? || By what date must I submit my income declaration? | April 15;May 31;July 31;October 31 | The tax office extended my deadline to {v}.
            DATE | The concert I bought tickets for is on {v}. || We're seeing the band live on {v}. | When is the gig? || What day is the live music show I'm going to? | November 12;November 26;December 3;December 17
            DATE | My passport expires on {v}. || I noticed my passport runs out on {v}. | When does my travel document lose validity? || Until when can I use my ID for trips abroad? | February 2;March 9;August 21;December 1
            DATE | My lease ends on {v}. || The flat contract runs until {v}. | When does our rental agreement finish? || By when do we have to move out? | January 31;March 31;June 30;August 31 | The landlord agreed to extend the lease to {v}.
            DATE | My son's school play is on {v}. || The school play with my son is on {v}. | When is the theatre performance at my boy's school? || What day is the kids' stage show? | May 19;June 2;June 16;June 30
            DATE | The team offsite is on {v}. || Work is taking us away for a retreat on {v}. | When is the company trip? || What date is the work retreat? | September 8;September 22;October 6;October 20 | The offsite got moved to {v}.
            DATE | My half-marathon is on {v}. || I'm racing twenty-one kilometres on {v}. | When is my long race? || What day do I run the big event? | April 7;April 21;May 5;October 13
            DATE | I started my new job on {v}. || My first day at the new company was {v}. | When did I change employers? || When did I join my current workplace? | January 8;February 5;March 4;September 2
            DATE | My visa appointment is on {v}. || The embassy wants to see me on {v}. | When do I go to the consulate? || What's the date of my immigration interview? | March 3;March 17;April 14;April 28 | The embassy moved the visa appointment to {v}.
            DATE | The plumber is coming back on {v}. || The plumber will return on {v} to finish the job. | When will the pipe repairs be completed? || When is the tradesman's next visit? | June 5;June 12;June 19;June 26
            DATE | My father's surgery is scheduled for {v}. || Dad has his operation on {v}. | When is my dad going into hospital? || What day is my father's procedure? | February 10;February 24;March 10;March 24 | The hospital rescheduled Dad's surgery to {v}.
            DATE | Our housewarming party is on {v}. || We're throwing a party for the new flat on {v}. | When is the celebration for our new home? || When are guests coming to see the new place? | May 10;May 24;June 7;June 21
            NUMBER | My budget for the new laptop is {v}. || I can spend {v} on the new computer, tops. | How much am I willing to spend on a notebook PC? || What's my price limit for the machine I'm buying? | 1,400 euros;1,150 euros;1,750 euros;980 euros | Good news: I can now spend {v} on the laptop.
            NUMBER | Our flat is number {v}. || We live in apartment {v}. | What's my unit number? || Which door in the building is ours? | 42;17;305;88
            NUMBER | My shoe size is {v}. || I wear size {v} shoes. | What size do my trainers need to be? || What footwear size should I order? | 44;39;46;41
            NUMBER | My commute takes {v} minutes each way. || It's {v} minutes to the office for me. | How long is my journey to work? || How much time do I spend travelling to my job? | 35;50;25;70 | We moved, so now my commute is {v} minutes.
            NUMBER | I'm expecting {v} guests at the party. || We invited {v} people to the party. | How many people are coming to the celebration? || What's the headcount for the event I'm hosting? | 24;31;12;45 | More people said yes, so now we expect {v} guests.
            NUMBER | My target weight is {v} kilos. || I want to get down to {v} kg. | What is my weight goal? || How heavy do I want to be? | 72;65;80;58
            NUMBER | Our rent is {v} a month. || We pay {v} monthly for the flat. | How much do we pay the landlord? || What does our apartment cost us? | 1,250 euros;890 euros;1,600 euros;1,075 euros | The rent went up to {v}.
            NUMBER | My salary expectation is {v} a year. || I'm asking for {v} annually in the new role. | What pay am I asking for? || How much do I want to earn at the new company? | 68,000;54,000;81,000;47,500 | After thinking it over, I'll ask for {v} a year instead.
            NUMBER | My longest run so far is {v} kilometres. || I managed {v} km in one run last week. | What's the farthest distance I have jogged? || How far can I run without stopping? | 18;14;23;11
            NUMBER | My phone's PIN ends in {v}. || The last digits of my PIN are {v}. | What are the final digits of my unlock code? || What's the end of my security number for the mobile? | 7351;2846;9013;4472
            NUMBER | I have {v} vacation days left this year. || There are {v} days of holiday remaining for me. | How much annual leave do I still have? || How many days off can I still take? | 12;7;19;4 | HR corrected it: I have {v} vacation days left.
            NUMBER | Our house has {v} square metres. || The flat is {v} m². | How big is our home? || What's the floor area of where we live? | 74;96;58;120
            NUMBER | My blood pressure was {v} at the last check. || The nurse measured {v} for my blood pressure. | What were my readings at the doctor? || How did my cardiovascular numbers look? | 128 over 84;135 over 90;118 over 76;142 over 92
            NUMBER | I've read {v} books this year. || That makes {v} books so far this year. | How many novels have I finished lately? || What's my reading count for the year? | 23;9;31;16
            NUMBER | My car does {v} litres per hundred kilometres. || The car uses {v} l/100 km. | How fuel-efficient is my vehicle? || What's the petrol consumption of my automobile? | 5.8;6.4;7.1;4.9
            NUMBER | The kitchen renovation quote was {v}. || The builder quoted {v} for the new kitchen. | How much will the cooking area remodel cost? || What was the price estimate for redoing our kitchen? | 18,500 euros;12,300 euros;24,000 euros;9,800 euros | A second builder quoted {v}, and we're going with that.
            NUMBER | My daughter is {v} years old. || My girl just turned {v}. | How old is my kid? || What age is my child? | 7;9;4;12
            NUMBER | The Wi-Fi password ends with {v}. || Our Wi-Fi key finishes in {v}. | What are the last characters of the internet code? || How does the wireless network key end? | 88x;q42;z7k;m19
            PREFERENCE | I really can't stand {v}. || Please never suggest anything with {v}, I hate it. | Which ingredient do I dislike? || What food should you avoid recommending to me? | cilantro;olives;mushrooms;anchovies
            PREFERENCE | On planes I always take {v}. || I prefer {v} when I fly. | Where do I like to sit when flying? || What seat should you book for me on flights? | an aisle seat;a window seat;an exit-row seat;a seat near the front
            PREFERENCE | My usual coffee order is {v}. || I always get {v} at the café. | What do I drink at the coffee shop? || How do I take my morning caffeine? | an oat flat white;a double espresso;a cortado;an iced americano | These days I've switched to {v}.
            PREFERENCE | For holidays I prefer {v}. || I'd always choose {v} for a vacation. | What kind of trip do I enjoy most? || Where would I rather spend my time off? | the mountains;the seaside;city breaks;the countryside
            PREFERENCE | My favourite kind of music is {v}. || I mostly listen to {v}. | What tunes do I enjoy? || What should you play me to cheer me up? | jazz;bluegrass;synthwave;baroque
            PREFERENCE | I prefer to be contacted by {v}. || Please reach me by {v}, not other ways. | How do I like people to get in touch? || What's the best channel to reach me? | email;text message;phone call;video call
            PREFERENCE | For exercise I like {v}. || My favourite workout is {v}. | What sport do I enjoy? || How do I like to keep fit? | swimming;bouldering;cycling;rowing | I've given that up; now I mostly do {v}.
            PREFERENCE | I'm {v}. || I follow a {v} diet. | Do I have dietary restrictions? || What kind of meals suit my eating habits? | vegetarian;pescatarian;vegan;gluten-free
            PREFERENCE | My favourite author is {v}. || I'll read anything by {v}. | Which writer do I like best? || Whose novels should you recommend me? | Ursula Le Guin;Kazuo Ishiguro;Terry Pratchett;Toni Morrison
            PREFERENCE | I like my room temperature at {v}. || The thermostat should be at {v} for me. | How warm do I keep the house? || What heating setting do I like? | 19 degrees;21 degrees;23 degrees;18 degrees
            PREFERENCE | My favourite colour is {v}. || I love anything in {v}. | What shade do I like most? || Which hue should the gift be? | teal;mustard yellow;burgundy;lavender
            PREFERENCE | I prefer {v} over other pets. || Honestly, {v} are my favourite animals. | What kind of animal do I like best? || Which creatures do I adore? | dogs;cats;rabbits;parrots
            PREFERENCE | I like to work {v}. || I'm most productive working {v}. | When am I at my most focused? || What's my ideal working schedule? | early in the morning;late at night;in the afternoon;in short bursts | I've changed my habits; now I work best {v}.
            PREFERENCE | My go-to cuisine is {v}. || When we eat out I pick {v}. | What type of restaurant do I like? || Which food culture is my favourite? | Ethiopian;Korean;Peruvian;Georgian
            PREFERENCE | I like my steak {v}. || Steak for me: {v}, please. | How should my beef be cooked? || What doneness do I want for meat? | medium rare;well done;rare;medium
            PREFERENCE | I'd rather take the {v} to work. || Commuting by {v} is my favourite. | How do I like to get to the office? || What transport do I choose for my daily trip? | tram;bike;bus;ferry | I sold my old pass; now I take the {v} to work.
            PREFERENCE | My favourite film is {v}. || I've watched {v} a dozen times. | What movie do I love most? || Which picture could I watch again and again? | Spirited Away;The Third Man;Amélie;Arrival
            PREFERENCE | I'm allergic to {v}. || {v} give me a bad allergic reaction. | What am I allergic to? || What causes my hay fever or reactions? | peanuts;cats;penicillin;bee stings
            PREFERENCE | In tea I take {v}. || I drink my tea with {v}. | How do I have my cuppa? || What do I add to a hot brew? | milk and no sugar;lemon;honey;nothing at all
            EVENT | Last weekend I ran a half marathon in {v}. || I finished a half marathon in {v} on Sunday. | Where did I race recently? || Which city did I do my twenty-one kilometre run in? | Lyon;Porto;Ghent;Utrecht
            EVENT | I broke my wrist skiing in {v}. || My wrist got broken on the slopes in {v}. | Where did I injure my arm? || Which resort did I have the accident in? | Zermatt;Kitzbühel;Chamonix;Bansko
            EVENT | We adopted a {v} last month. || A {v} joined our family recently. | What new animal did we get? || Which pet is the newest member of the household? | parrot;tortoise;ferret;hamster
            EVENT | We repainted the kitchen {v}. || The kitchen is {v} now after we painted it. | What colour are the walls where we cook? || How did we redecorate the cooking area? | yellow;sage green;terracotta;navy blue
            EVENT | I passed my driving test {v}. || I finally got my licence {v}. | When did I qualify to drive? || How did my road exam go? | on the third attempt;at the first try;last Tuesday;after two fails
            EVENT | We got engaged in {v}. || He proposed to me in {v}! | Where did my partner pop the question? || Where did the proposal happen? | Venice;Kyoto;Reykjavik;Marrakesh
            EVENT | I won {v} in the office quiz. || Our team came first in the quiz and I got {v}. | What was my prize at the trivia night? || What did I take home from the pub contest? | a bottle of champagne;a cinema voucher;a fruit basket;a golden trophy
            EVENT | My laptop was stolen in {v}. || Someone stole my computer at the station in {v}. | Where did I lose my notebook to a thief? || Where was my machine taken from me? | Brussels;Milan;Prague;Seville
            EVENT | I met my partner at {v}. || My partner and I first met at {v}. | How did I get to know my significant other? || Where did our relationship start? | a salsa class;a friend's wedding;a climbing gym;a book club
            EVENT | I volunteered at {v} on Saturday. || I helped out at {v} this weekend. | Where did I do charity work? || Which good cause did I spend my free day on? | the food bank;an animal shelter;a beach clean-up;a soup kitchen
            EVENT | Our basement flooded because of {v}. || Water came into the cellar from {v}. | What caused the damage downstairs? || Why did we have water under the house? | a burst pipe;heavy rain;a broken washing machine;a blocked drain
            EVENT | I got a promotion to {v}. || They made me {v} at work. | What's my new job title? || What role was I moved up to? | team lead;senior analyst;head of design;principal engineer
            EVENT | I learned to make {v} at a cooking class. || The cooking class taught me {v}. | What dish did I learn in the course? || What can I cook now thanks to the lessons? | fresh pasta;dumplings;paella;croissants
            EVENT | We saw {v} at the zoo. || The highlight of the zoo was {v}. | What animal impressed us on the family outing? || What did the kids love at the animal park? | a baby elephant;the snow leopards;a family of otters;the giraffes
            EVENT | I lost my keys at {v}. || My keys went missing at {v}. | Where did I misplace my door opener? || Where should I look for what I lost? | the gym;the cinema;my parents' house;the supermarket
            EVENT | I sang {v} at karaoke. || My karaoke song was {v}. | What did I perform on the mic? || Which tune did I belt out the other night? | Bohemian Rhapsody;Dancing Queen;Purple Rain;Africa
            EVENT | My bike was fixed at {v}. || I took the bike to {v} for repairs. | Which shop repaired my bicycle? || Where did my two-wheeler get serviced? | Spoke & Chain;Velo Vida;Pedal Point;Crank House
            EVENT | I ran into my old teacher at {v}. || Guess who I met at {v}: my old maths teacher! | Where did I bump into someone from school? || Where did the surprise encounter happen? | the airport;a farmers' market;the dentist's waiting room;a train to Vienna
            EVENT | Our team launched {v} this week. || We shipped {v} at work on Thursday. | What product did my colleagues and I release? || What went live at my job? | the mobile app;a new checkout;the booking portal;a recommendation engine
            EVENT | I got food poisoning from {v}. || {v} made me ill last night. | What made me sick? || What dish upset my stomach? | oysters;a kebab;leftover rice;a prawn curry
            EVENT | I adopted a new hobby: {v}. || I've taken up {v} recently. | What new pastime did I start? || What activity have I been getting into? | pottery;birdwatching;woodcarving;calligraphy | I quit that one; my new hobby is {v}.
            EVENT | I found {v} while hiking. || On the trail yesterday I came across {v}. | What did I discover on my walk in the hills? || What was the surprise on my nature trek? | an old Roman coin;a lost lamb;a hidden waterfall;a wild orchid
            NAME | My favourite barista is {v}. || {v} at the corner café remembers my order. | Who makes my drinks at the coffee place? || Which café worker knows me by name? | Anselm;Marisol;Tobiah;Jolene
            DATE | My driving lesson is on {v}. || I booked a driving lesson for {v}. | When do I practise behind the wheel next? || What day is my next session with the instructor in the car? | March 6;March 20;April 10;April 24
            NUMBER | My bike lock code is {v}. || The combination for my bike lock is {v}. | What numbers open the chain on my bicycle? || How do I unlock my two-wheeler? | 4-1-9;7-7-2;3-0-8;5-6-1
            """;

    private FactTable() {
    }

    /** Every subject, in table order. */
    static List<Subject> subjects() {
        List<Subject> subjects = new ArrayList<>();
        for (String line : TABLE.strip().split("\n")) {
            String[] columns = line.split(" \\| ");
            subjects.add(new Subject(Kind.valueOf(columns[0].strip()), List.of(columns[1].strip().split(" \\|\\| ")),
                    List.of(columns[2].strip().split(" \\|\\| ")), List.of(columns[3].strip().split(";")),
                    columns.length > 4 ? columns[4].strip() : null));
        }
        return subjects;
    }
}
