package io.github.memorypack.spring.readme;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.RequestScope;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The application of the starter README's "An application that starts first try", as it is written
 * there (between the markers); {@code ReadmeApplicationsTest} starts it on each store's dependencies.
 */
// --- README application starts
@SpringBootApplication
public class ChatApplication {

    public interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    @Bean
    ChatModel chatModel(@Value("${openai.base-url:https://api.openai.com/v1}") String baseUrl,
                        @Value("${openai.api-key}") String apiKey) {
        return OpenAiChatModel.builder().baseUrl(baseUrl).apiKey(apiKey).modelName("gpt-4o-mini").build();
    }

    @Bean
    Assistant assistant(ChatModel chatModel, ChatMemoryProvider chatMemoryProvider) {
        return AiServices.builder(Assistant.class)
                .chatModel(chatModel)
                .chatMemoryProvider(chatMemoryProvider)   // Memory Pack's, configured by the properties
                .registerListeners(RequestScope.aiServiceListeners())   // tells the memory where each request ends
                .build();
    }

    public static void main(String[] args) {
        SpringApplication.run(ChatApplication.class, args);
    }
}
// --- README application ends
