package io.github.memorypack.integration.surface;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No file in a published module's main sources is over {@value #MAX_LINES} lines, except those
 * docs/architecture.md's "File size" table names with the reason (issue 24), and that table names no
 * file that is not over.
 */
class SourceSizeTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final int MAX_LINES = 600;

    @Test
    void should_keep_every_main_source_file_of_a_published_module_within_600_lines_or_say_why() throws IOException {
        // given: the published modules (the BOM's; each folder is its artifactId less memory-pack-)
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"), StandardCharsets.UTF_8);
        Matcher artifacts = Pattern.compile("<artifactId>memory-pack-([a-z0-9-]+)</artifactId>")
                .matcher(bom.substring(bom.indexOf("<dependencyManagement>")));
        Map<String, Long> over = new TreeMap<>();
        int files = 0;
        while (artifacts.find()) {
            Path sources = ROOT.resolve(artifacts.group(1)).resolve("src/main/java");
            if (!Files.isDirectory(sources)) {
                continue; // a starter: dependencies only
            }
            try (Stream<Path> walk = Files.walk(sources)) {
                for (Path file : (Iterable<Path>) walk.filter(p -> p.toString().endsWith(".java"))::iterator) {
                    files++;
                    long lines;
                    try (Stream<String> text = Files.lines(file, StandardCharsets.UTF_8)) {
                        lines = text.count();
                    }
                    if (lines > MAX_LINES) {
                        over.put(artifacts.group(1) + "/.../" + file.getFileName(), lines);
                    }
                }
            }
        }

        // when: the architecture document's table of the files that stay whole
        String doc = Files.readString(ROOT.resolve("docs/architecture.md"), StandardCharsets.UTF_8);
        int from = doc.indexOf("## File size");
        String section = doc.substring(from, doc.indexOf("\n## ", from + 1));
        TreeSet<String> listed = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| `([^`]+)` \\|").matcher(section);
        while (row.find()) {
            listed.add(row.group(1));
        }

        // then
        assertThat(files).as("main source files of the published modules").isGreaterThan(100);
        assertThat(listed).as("files over %d lines, each with the reason it stays whole in docs/architecture.md",
                MAX_LINES).isEqualTo(over.keySet());
    }
}
