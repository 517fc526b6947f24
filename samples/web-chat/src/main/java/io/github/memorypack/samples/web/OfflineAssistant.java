package io.github.memorypack.samples.web;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.github.memorypack.replay.Conversation;
import java.util.List;
import java.util.Locale;

/**
 * The web chat's model when no {@code OPENAI_API_KEY} is set: the comparison demo's scripted
 * assistant. A message that is a line of the built-in script gets the script's answer (the line of
 * the same turn when the conversation follows the script, else the first turn with that line); any
 * other message gets an answer that says what the model was sent, so each strategy's forgetting is
 * visible. Deterministic.
 */
final class OfflineAssistant implements ChatModel {

    /** Starts every answer that is not from the script. */
    static final String LABEL = "[offline, not a model]";

    private final List<Conversation.Turn> script;

    OfflineAssistant(Conversation conversation) {
        this.script = conversation.turns();
    }

    /** The script's user line for the turn after {@code turnsDone}, or the first one after the end. */
    String nextScriptedLine(int turnsDone) {
        return script.get(Math.floorMod(turnsDone, script.size())).user();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        List<String> said = messages.stream().filter(UserMessage.class::isInstance)
                .map(m -> ((UserMessage) m).singleText()).toList();
        String last = said.isEmpty() ? "" : said.get(said.size() - 1);
        return ChatResponse.builder().aiMessage(AiMessage.from(answer(last, said.size() - 1, messages))).build();
    }

    private String answer(String last, int earlierTurnsSeen, List<ChatMessage> messages) {
        for (int i = 0; i < script.size(); i++) {
            if (script.get(i).user().equals(last)) {
                return script.get(i).assistant();
            }
        }
        boolean summary = messages.stream().filter(SystemMessage.class::isInstance).count() > 1;
        return String.format(Locale.ROOT, "%s You said \"%s\". I was sent %d messages%s, %d earlier user messages"
                + " among them.", LABEL, last, messages.size(), summary ? " including a summary" : "",
                Math.max(0, earlierTurnsSeen));
    }
}
