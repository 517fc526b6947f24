package io.github.memorypack.core.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of core/README.md ("File store"), kept compiling and passing here. */
class FileStoreReadmeExampleTest {

    @TempDir
    Path dataDir;

    @Test
    void should_run_the_readme_example_when_copied_verbatim() {
        List<String> alerts = new ArrayList<>();
        Path folder = dataDir.resolve("sessions");

        // --- README example starts
        FileSessionStore store = FileSessionStore.builder()
                .directory(folder)                                  // created 0700 if missing
                .onRecovery(r -> alerts.add("torn tail of " + r.sessionId() + " kept in " + r.setAsideTo()))
                .build();

        // append: one write + one fsync, done before it returns; a retried request id is stored once
        store.append("ana", List.of(NewEntry.of(UserMessage.from("Hi, I'm Ana."))), "request-1");
        store.append("ana", List.of(NewEntry.of(UserMessage.from("Hi, I'm Ana."))), "request-1");
        store.append("ana", List.of(NewEntry.of(AiMessage.from("Hello Ana!"))));

        List<Entry> lastTwo = store.readLast("ana", 2);               // from the cache: no re-parse
        SessionState state = store.state("ana");
        store.compareAndSetState("ana", state.version(), state.withAttributes(Map.of("lang", "en")));

        store.trim("ana", 1);                        // entry 0 moves to ana.jsonl.trimmed, never lost
        FileSessionStore afterRestart = FileSessionStore.of(folder);     // sees entries, state, keys
        // --- README example ends

        assertThat(lastTwo).extracting(Entry::index).containsExactly(0L, 1L);
        assertThat(afterRestart.read("ana", 0, 10)).extracting(Entry::message)
                .containsExactly(AiMessage.from("Hello Ana!"));
        assertThat(afterRestart.state("ana").attributes()).containsEntry("lang", "en");
        assertThat(afterRestart.nextIndex("ana")).isEqualTo(2);
        assertThat(folder.resolve("ana.jsonl.trimmed")).exists();
        assertThat(alerts).isEmpty();
    }
}
