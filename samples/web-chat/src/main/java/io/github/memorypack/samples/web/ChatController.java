package io.github.memorypack.samples.web;

import io.github.memorypack.replay.Strategy;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The page's JSON API (under {@code /api}); the page itself is {@code static/index.html}. */
@RestController
class ChatController {

    /** A message to send: the session, the live strategy's label, the text. */
    record ChatInput(String session, String strategy, String message) {
    }

    private final ChatService chats;

    ChatController(ChatService chats) {
        this.chats = chats;
    }

    @GetMapping("/api/info")
    Map<String, Object> info() {
        return Map.of("mode", chats.describe(), "strategies", ChatService.STRATEGIES.stream().map(Strategy::label)
                        .toList(), "defaultStrategy", Strategy.SUMMARY_BUFFER.label(), "limits",
                ChatService.STRATEGIES.stream().map(s -> s.describe(ChatService.LIMITS)).toList());
    }

    @GetMapping("/api/sessions")
    List<String> sessions() {
        return chats.sessions();
    }

    @GetMapping("/api/sessions/{session}")
    ChatService.SessionView open(@PathVariable String session) {
        return chats.open(session);
    }

    /** The server's own record of the session's requests in this run: every strategy's messages and tokens. */
    @GetMapping("/api/sessions/{session}/requests")
    List<ChatService.Exchange> requests(@PathVariable String session) {
        return chats.requests(session);
    }

    @PostMapping("/api/chat")
    ChatService.Exchange chat(@RequestBody ChatInput input) {
        return chats.chat(input.session(), Strategy.of(input.strategy() == null ? "" : input.strategy()),
                input.message());
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException e) {
        return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(Map.of("error", String.valueOf(e.getMessage())));
    }
}
