package io.github.memorypack.core;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.Locale;
import java.util.Objects;

/**
 * Token counters backed by jtokkit, exposed as LangChain4j {@link TokenCountEstimator}s.
 *
 * <p>Counting follows OpenAI's chat accounting: every message costs its content tokens plus
 * {@value #TOKENS_PER_MESSAGE} tokens of framing (one more when a user message has a name), and
 * a request costs {@value #TOKENS_PER_REPLY} more for priming the reply. Tool execution requests
 * count their name, arguments and id; tool results their text and id. An image counts
 * {@value #IMAGE_TOKENS_LOW} tokens at low detail and {@value #IMAGE_TOKENS} otherwise (the cost of
 * a 1024×1024 high-detail image). Thinking text is not counted: OpenAI does not send it back.
 * Audio, video and PDF contents count 0 — they are not estimable from the message alone.
 *
 * <p>Estimators are thread-safe and cheap to share.
 */
public final class Tokenizers {

    /** Framing tokens per message in OpenAI's chat format. */
    public static final int TOKENS_PER_MESSAGE = 3;
    /** Tokens that prime the assistant's reply, once per request. */
    public static final int TOKENS_PER_REPLY = 3;
    /** Tokens charged for an image at high or automatic detail. */
    public static final int IMAGE_TOKENS = 765;
    /** Tokens charged for an image at low detail. */
    public static final int IMAGE_TOKENS_LOW = 85;

    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    private Tokenizers() {
    }

    /**
     * The estimator for an OpenAI model name: o200k_base for gpt-4o, gpt-4.1, gpt-4.5, gpt-5 and the
     * o-series (o1, o3, o4…), cl100k_base for gpt-4, gpt-3.5 and the text-embedding models. Dated or
     * suffixed names ({@code gpt-4o-mini-2024-07-18}) match their family.
     *
     * @param modelName an OpenAI model name, such as {@code gpt-4o-mini}
     * @return the model's token counter
     * @throws IllegalArgumentException for a name of no known family; use {@link #o200k()} for other models
     */
    public static TokenCountEstimator forModel(String modelName) {
        Objects.requireNonNull(modelName, "modelName");
        String name = modelName.trim().toLowerCase(Locale.ROOT);
        if (name.startsWith("gpt-4o") || name.startsWith("chatgpt-4o") || name.startsWith("gpt-4.1")
                || name.startsWith("gpt-4.5") || name.startsWith("gpt-5") || name.matches("o\\d.*")) {
            return o200k();
        }
        if (name.startsWith("gpt-4") || name.startsWith("gpt-3.5") || name.startsWith("gpt-35")
                || name.startsWith("text-embedding-3") || name.startsWith("text-embedding-ada-002")) {
            return cl100k();
        }
        throw new IllegalArgumentException("no known tokenizer for model '" + modelName
                + "'; use Tokenizers.o200k() or Tokenizers.cl100k() for an estimate");
    }

    /**
     * o200k_base: gpt-4o, gpt-4.1, gpt-5, o-series. A sound default estimate for current models.
     *
     * @return an o200k_base counter
     */
    public static TokenCountEstimator o200k() {
        return O200K;
    }

    /**
     * cl100k_base: gpt-4, gpt-3.5-turbo, text-embedding-3.
     *
     * @return a cl100k_base counter
     */
    public static TokenCountEstimator cl100k() {
        return CL100K;
    }

    private static final TokenCountEstimator O200K = new JtokkitEstimator(REGISTRY.getEncoding(EncodingType.O200K_BASE));
    private static final TokenCountEstimator CL100K = new JtokkitEstimator(REGISTRY.getEncoding(EncodingType.CL100K_BASE));

    private static final class JtokkitEstimator implements TokenCountEstimator {

        private final Encoding encoding;

        JtokkitEstimator(Encoding encoding) {
            this.encoding = encoding;
        }

        @Override
        public int estimateTokenCountInText(String text) {
            return text == null || text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
        }

        @Override
        public int estimateTokenCountInMessage(ChatMessage message) {
            int tokens = TOKENS_PER_MESSAGE;
            if (message instanceof SystemMessage) {
                tokens += estimateTokenCountInText(((SystemMessage) message).text());
            } else if (message instanceof UserMessage) {
                UserMessage user = (UserMessage) message;
                if (user.name() != null) {
                    tokens += 1 + estimateTokenCountInText(user.name());
                }
                for (Content content : user.contents()) {
                    tokens += contentTokens(content);
                }
            } else if (message instanceof AiMessage) {
                AiMessage ai = (AiMessage) message;
                tokens += estimateTokenCountInText(ai.text());
                for (ToolExecutionRequest request : ai.toolExecutionRequests()) {
                    tokens += TOKENS_PER_MESSAGE + estimateTokenCountInText(request.id())
                            + estimateTokenCountInText(request.name()) + estimateTokenCountInText(request.arguments());
                }
            } else if (message instanceof ToolExecutionResultMessage) {
                ToolExecutionResultMessage result = (ToolExecutionResultMessage) message;
                tokens += estimateTokenCountInText(result.id());
                for (Content content : result.contents()) {
                    tokens += contentTokens(content);
                }
            } else if (message instanceof CustomMessage) {
                tokens += estimateTokenCountInText(String.valueOf(((CustomMessage) message).attributes()));
            }
            return tokens;
        }

        private int contentTokens(Content content) {
            if (content instanceof TextContent) {
                return estimateTokenCountInText(((TextContent) content).text());
            }
            if (content instanceof ImageContent) {
                return ((ImageContent) content).detailLevel() == ImageContent.DetailLevel.LOW
                        ? IMAGE_TOKENS_LOW : IMAGE_TOKENS;
            }
            return 0;
        }

        @Override
        public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
            int tokens = TOKENS_PER_REPLY;
            for (ChatMessage message : messages) {
                tokens += estimateTokenCountInMessage(message);
            }
            return tokens;
        }

        @Override
        public String toString() {
            return "Tokenizers[" + encoding.getName() + "]";
        }
    }
}
