package io.github.memorypack.samples.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.memorypack.replay.Conversation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The web chat's HTTP API, without a browser. */
class WebChatTest {

    private static WebChatApp app;

    @BeforeAll
    static void start() {
        app = new WebChatApp();
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @Test
    void should_send_the_live_view_and_compute_the_others_when_a_message_is_sent() throws Exception {
        // given: the scripted conversation's first turns
        List<Conversation.Turn> script = Conversation.builtIn().turns();
        List<JsonNode> exchanges = new ArrayList<>();

        // when
        for (int i = 0; i < 3; i++) {
            exchanges.add(app.chat("api-test", i < 2 ? "summary-buffer" : "window", script.get(i).user()));
        }

        // then: scripted answers; every strategy's request ends with the new user message
        assertThat(exchanges.get(0).get("answer").asText()).isEqualTo(script.get(0).assistant());
        JsonNode third = exchanges.get(2);
        assertThat(third.get("live").asText()).isEqualTo("window");
        assertThat(third.get("number").asInt()).isEqualTo(3);
        for (String strategy : List.of("buffer", "window", "summary", "summary-buffer")) {
            JsonNode messages = third.get("requests").get(strategy).get("messages");
            assertThat(messages.get(messages.size() - 1).get("text").asText()).isEqualTo(script.get(2).user());
            assertThat(messages.get(0).get("role").asText()).isEqualTo("system");
            assertThat(third.get("requests").get(strategy).get("tokens").asInt()).isPositive();
        }
        // the buffer sends both earlier turns verbatim; summary folded them into its summary
        assertThat(third.get("requests").get("buffer").get("messages")).hasSize(1 + 4 + 1);
        assertThat(third.get("requests").get("summary").get("messages").get(1).get("role").asText()).isEqualTo("summary");
        assertThat(third.get("requests").get("summary").get("summary").asText()).isNotBlank();
        // the server's record is what the chat returned
        JsonNode record = app.get("/api/sessions/api-test/requests");
        assertThat(record).hasSize(3);
        assertThat(record.get(2)).isEqualTo(third);
        assertThat(app.get("/api/sessions").toString()).contains("api-test");
        JsonNode session = app.get("/api/sessions/api-test");
        assertThat(session.get("history")).hasSize(6);
        assertThat(session.get("nextScriptedLine").asText()).isEqualTo(script.get(3).user());
    }

    @Test
    void should_part_the_strategies_within_the_first_five_turns_when_the_scripted_conversation_is_sent()
            throws Exception {
        // given: the demo's small limits (ChatService.LIMITS)
        List<Conversation.Turn> script = Conversation.builtIn().turns();
        JsonNode fifth = null;

        // when
        for (int i = 0; i < 5; i++) {
            fifth = app.chat("parting", "summary-buffer", script.get(i).user());
        }

        // then: every bounded strategy already sends less than the buffer, and most send requests of their own
        JsonNode requests = fifth.get("requests");
        int buffer = requests.get("buffer").get("tokens").asInt();
        for (String bounded : List.of("window", "window-tokens", "window-chunked", "summary", "summary-buffer")) {
            assertThat(requests.get(bounded).get("tokens").asInt()).as(bounded).isLessThan(buffer);
        }
        java.util.Set<Integer> distinct = new java.util.HashSet<>();
        requests.forEach(r -> distinct.add(r.get("tokens").asInt()));
        assertThat(distinct).as("different request sizes among the eight strategies: %s", requests).hasSizeGreaterThanOrEqualTo(5);
    }

    @Test
    void should_offer_every_strategy_with_the_recall_ones_when_the_page_asks_what_there_is() throws Exception {
        assertThat(app.get("/api/info").get("strategies")).extracting(JsonNode::asText).containsExactly("buffer",
                "window", "window-tokens", "window-chunked", "summary", "summary-buffer", "window+recall",
                "summary-buffer+recall");
    }

    @Test
    void should_show_the_stored_summaries_when_a_session_is_opened_after_a_restart() throws Exception {
        // given: five turns, so that summary and summary-buffer have stored a running summary
        List<Conversation.Turn> script = Conversation.builtIn().turns();
        try (WebChatApp first = new WebChatApp()) {
            for (int i = 0; i < 5; i++) {
                first.chat("restarted", "window", script.get(i).user());
            }
            JsonNode before = first.get("/api/sessions/restarted").get("summaries");
            assertThat(before.has("summary")).isTrue();

            // when: the app is started again on the same folder
            first.close();
            try (WebChatApp second = new WebChatApp(first.directory())) {
                JsonNode after = second.get("/api/sessions/restarted");

                // then: no request of this run, and the same summaries, read from the store
                assertThat(after.get("exchanges")).isEmpty();
                assertThat(after.get("summaries")).isEqualTo(before);
            }
        }
    }

    @Test
    void should_reject_a_bad_session_name_when_it_could_escape_its_folder() throws Exception {
        assertThat(app.post("/api/chat", Map.of("session", "../x", "strategy", "window", "message", "hi")).statusCode())
                .isEqualTo(400);
        assertThat(app.post("/api/chat", Map.of("session", "ok", "strategy", "nope", "message", "hi")).statusCode())
                .isEqualTo(400);
    }
}
