package io.github.memorypack.recall;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.util.ArrayList;
import java.util.List;

/** Test conversations: planted facts, everyday filler turns that share none of their words, queries. */
final class Chats {

    static final String SISTER = "By the way, my sister Ingrid moved to Tromsø last spring.";
    /** Names Ingrid, so that it matches {@link #SISTER_QUESTION} too and is recalled with it (not shown as "…"). */
    static final String SISTER_ANSWER = "That is a big move! I hope Ingrid enjoys the north.";
    /** Shares only the entity with {@link #SISTER}. */
    static final String SISTER_QUESTION = "Which town is Ingrid based in these days?";
    static final String BUDGET = "My budget for the new computer is 1,400 euros, tops.";
    static final String BUDGET_ANSWER = "Understood, I will keep suggestions under 1,400 euros.";
    /** Shares no word with {@link #BUDGET}: found by meaning only. */
    static final String BUDGET_QUESTION = "How much am I willing to spend on the laptop?";
    /** About nothing planted. */
    static final String OTHER_QUESTION = "Can you recommend a good pasta recipe for tonight?";

    private static final String[][] FILLER = {
            {"What is a good way to start running?", "Begin with short, easy jogs three times a week."},
            {"How do I keep basil alive on a windowsill?", "Water it when the soil is dry and give it plenty of sun."},
            {"Explain what a hash map is.", "It stores key-value pairs and finds a key in constant time on average."},
            {"Any tips for sleeping better?", "Keep a regular schedule and avoid screens before bed."},
            {"How long should I steep green tea?", "About two to three minutes at 80 degrees."},
            {"What does HTTP 404 mean?", "The server could not find the requested resource."},
            {"How can I learn chess openings?", "Pick one opening for white and one defence for black and study them."},
            {"Should I stretch before or after exercise?", "Dynamic stretches before, static ones after."},
            {"What is the capital of Australia?", "Canberra."},
            {"How do I remove a coffee stain from a shirt?", "Blot it, then rinse with cold water and a little detergent."},
            {"Recommend a podcast about history.", "Try one that tells a single story over several episodes."},
            {"Why is the sky blue?", "Air scatters short blue wavelengths of sunlight more than red ones."},
            {"How do I write a cover letter?", "Say why you want the job, show one or two achievements, keep it short."},
            {"What is the difference between a list and a set?", "A list keeps order and duplicates; a set keeps unique items."},
            {"How often should I water a cactus?", "Rarely: every two to four weeks, less in winter."},
            {"Give me a quick stretching routine for my back.", "Cat-cow, child's pose and knee-to-chest, thirty seconds each."},
            {"What is compound interest?", "Interest earned on both the original amount and earlier interest."},
            {"How do noise-cancelling headphones work?", "They play a sound wave that is the inverse of the ambient noise."},
            {"Tips for a job interview?", "Research the company, prepare examples, and ask good questions."},
            {"What is a haiku?", "A three-line poem of five, seven and five syllables."},
    };

    private Chats() {
    }

    /** Filler turn {@code i} (user message, answer); cycles through a fixed list with a counter. */
    static List<ChatMessage> filler(int i) {
        String[] turn = FILLER[i % FILLER.length];
        String suffix = i < FILLER.length ? "" : " (" + (i / FILLER.length + 1) + ")";
        return List.of(UserMessage.from(turn[0] + suffix), AiMessage.from(turn[1]));
    }

    static String fillerQuestion(int i) {
        return ((UserMessage) filler(i).get(0)).singleText();
    }

    static String fillerAnswer(int i) {
        return FILLER[i % FILLER.length][1];
    }

    /** Session "ana"'s window of 6 messages (3 turns) over {@code store}: older turns are recall's to find. */
    static WindowChatMemory window(SessionStore store) {
        return WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(6).build();
    }

    /** Adds a user message and its answer to a memory. */
    static void turn(ChatMemory memory, String user, String answer) {
        memory.add(UserMessage.from(user));
        memory.add(AiMessage.from(answer));
    }

    /** Adds filler turns {@code from} to {@code to - 1}. */
    static void fillers(ChatMemory memory, int from, int to) {
        for (int i = from; i < to; i++) {
            for (ChatMessage message : filler(i)) {
                memory.add(message);
            }
        }
    }

    /** The query AiServices would make for {@code text} on this memory (its id and view). */
    static Query query(ChatMemory memory, String text) {
        UserMessage message = UserMessage.from(text);
        return Query.from(text, Metadata.builder().chatMessage(message).chatMemory(memory.messages())
                .invocationContext(InvocationContext.builder().chatMemoryId(memory.id()).build())
                .build());
    }

    static List<String> texts(List<Content> contents) {
        List<String> texts = new ArrayList<>();
        for (Content content : contents) {
            texts.add(content.textSegment().text());
        }
        return texts;
    }

    static String joined(List<Content> contents) {
        return String.join("\n\n", texts(contents));
    }
}
