package io.github.memorypack.samples;

import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;

/** The AiServices example's assistant: one memory per traveller, picked by {@link MemoryId}. */
public interface TravelAssistant {

    @SystemMessage("You are a friendly travel planner. Use the tools for arithmetic on money.")
    String chat(@MemoryId String traveller, @UserMessage String message);
}
