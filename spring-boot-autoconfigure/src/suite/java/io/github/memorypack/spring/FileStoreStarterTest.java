package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** File store, summary-buffer with the offline extractive summarizer. */
@SpringBootTest(classes = TestApplication.class, properties = {
        "memory-pack.strategy=summary-buffer",
        "memory-pack.summary-buffer.max-buffer-tokens=2000",
        "memory-pack.summarizer.extractive=true",
        "memory-pack.store.type=file"})
class FileStoreStarterTest extends StarterConversationTest {

    FileStoreStarterTest() {
        super("file", "summary-buffer", FileSessionStore.class);
    }

    private static final Path DIRECTORY = temporaryDirectory();

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry properties) {
        properties.add("memory-pack.store.file.directory", DIRECTORY::toString);
    }

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("starter-file-store");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    void thenAlso(String ana) {
        // the log is on disk, in the configured folder
        try (var files = Files.walk(DIRECTORY)) {
            assertThat(files.filter(Files::isRegularFile).map(Path::toString)).anyMatch(f -> f.contains(ana));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
