package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java example in the project's READMEs is code that compiles and runs: each {@code ```java}
 * block must appear, line for line (indentation aside), in a test or sample source file of the
 * project (closing braces that end the block aside). A block preceded by an {@code <!-- not compiled: why -->} line is exempt (a fragment).
 */
class ReadmeSnippetsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String EXEMPT = "<!-- not compiled:";

    @Test
    void should_find_every_readme_java_example_in_compiled_sources() throws IOException {
        List<String> sources = javaSources();
        List<String> missing = new ArrayList<>();
        List<Path> readmes;
        try (Stream<Path> files = Files.walk(ROOT)) {
            readmes = files.filter(p -> p.getFileName().toString().equals("README.md"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/docs/old/")
                            && !p.toString().contains("/.git/"))
                    .sorted().toList();
        }
        int blocks = 0;
        for (Path readme : readmes) {
            List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).strip().equals("```java")) {
                    continue;
                }
                boolean exempt = i > 0 && lines.get(i - 1).strip().startsWith(EXEMPT);
                List<String> block = new ArrayList<>();
                int j = i + 1;
                while (j < lines.size() && !lines.get(j).strip().equals("```")) {
                    block.add(lines.get(j));
                    j++;
                }
                if (!exempt) {
                    blocks++;
                    // closing braces at the end close what the example opened; the test goes on inside
                    while (!block.isEmpty() && block.get(block.size() - 1).strip().matches("[})\\];]*")) {
                        block.remove(block.size() - 1);
                    }
                    String normalized = normalize(block);
                    if (sources.stream().noneMatch(source -> source.contains(normalized))) {
                        missing.add(ROOT.relativize(readme) + ":" + (i + 1));
                    }
                }
                i = j;
            }
        }
        assertThat(blocks).as("java examples found in READMEs").isGreaterThan(10);
        assertThat(missing).as("README java examples not found verbatim in any test or sample source").isEmpty();
    }

    /**
     * Every {@code <dependency>} of Memory Pack in a README's {@code ```xml} block names an artifact the BOM
     * manages (a published module) and, where it gives a version, this build's.
     */
    @Test
    void should_name_in_every_readme_dependency_an_artifact_of_the_bom_at_this_version() throws IOException {
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"), StandardCharsets.UTF_8);
        String root = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
        java.util.regex.Matcher v = java.util.regex.Pattern.compile("</modelVersion>.*?<version>([^<]+)</version>",
                java.util.regex.Pattern.DOTALL).matcher(root);
        assertThat(v.find()).isTrue();
        String version = v.group(1);
        java.util.regex.Pattern dependency = java.util.regex.Pattern.compile(
                "<dependency>\\s*<groupId>io\\.github\\.memorypack</groupId>\\s*<artifactId>([^<]+)</artifactId>"
                        + "(?:[^<]*<!--[^>]*-->)?\\s*(?:<version>([^<]+)</version>)?");
        List<String> wrong = new ArrayList<>();
        int found = 0;
        for (Map.Entry<Path, String> block : xmlBlocks()) {
            Path readme = block.getKey();
            {
                java.util.regex.Matcher m = dependency.matcher(block.getValue());
                while (m.find()) {
                    found++;
                    String artifact = m.group(1);
                    if (!bom.contains("<artifactId>" + artifact + "</artifactId>")) {
                        wrong.add(ROOT.relativize(readme) + ": " + artifact + " is not in the BOM");
                    }
                    if (m.group(2) != null && !m.group(2).equals(version)) {
                        wrong.add(ROOT.relativize(readme) + ": " + artifact + " at " + m.group(2) + ", not " + version);
                    }
                }
            }
        }
        assertThat(found).as("Memory Pack dependencies in README xml blocks").isGreaterThan(15);
        assertThat(wrong).isEmpty();
    }

    /**
     * Every other dependency a README's {@code ```xml} block gives a version is, where the root pom manages
     * it, at the root pom's version: what the README tells a user to add is what the build tests.
     */
    @Test
    void should_give_in_every_readme_dependency_the_version_the_build_uses() throws IOException {
        String root = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
        java.util.regex.Pattern dependency = java.util.regex.Pattern.compile("<groupId>([^<]+)</groupId>\\s*"
                + "<artifactId>([^<]+)</artifactId>\\s*<version>([^<]+)</version>");
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<Path, String> block : xmlBlocks()) {
            Path readme = block.getKey();
            {
                java.util.regex.Matcher m = dependency.matcher(block.getValue());
                while (m.find()) {
                    java.util.regex.Matcher managed = java.util.regex.Pattern.compile("<groupId>"
                            + java.util.regex.Pattern.quote(m.group(1)) + "</groupId>\\s*<artifactId>"
                            + java.util.regex.Pattern.quote(m.group(2)) + "</artifactId>\\s*<version>\\$\\{([^}]+)}</version>")
                            .matcher(root);
                    if (m.group(1).equals("io.github.memorypack") || !managed.find()) {
                        continue;
                    }
                    java.util.regex.Matcher property = java.util.regex.Pattern.compile("<"
                            + java.util.regex.Pattern.quote(managed.group(1)) + ">([^<]+)</").matcher(root);
                    assertThat(property.find()).as(managed.group(1)).isTrue();
                    checked++;
                    if (!property.group(1).equals(m.group(3))) {
                        wrong.add(ROOT.relativize(readme) + ": " + m.group(1) + ":" + m.group(2) + " at " + m.group(3)
                                + ", the build uses " + property.group(1));
                    }
                }
            }
        }
        assertThat(checked).as("versioned third-party dependencies in README xml blocks").isGreaterThan(5);
        assertThat(wrong).isEmpty();
    }

    /** The README's module-path list names every published module's Automatic-Module-Name, and only those. */
    @Test
    void should_list_in_the_readme_the_automatic_module_name_of_every_published_module() throws IOException {
        // given: the BOM's modules (the published ones) and the name each pom gives its jar
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"), StandardCharsets.UTF_8);
        java.util.Set<String> published = new java.util.TreeSet<>();
        java.util.regex.Matcher artifacts = java.util.regex.Pattern.compile("<artifactId>memory-pack-([a-z0-9-]+)</artifactId>")
                .matcher(bom.substring(bom.indexOf("<dependencyManagement>")));
        while (artifacts.find()) {
            String folder = artifacts.group(1); // each module's folder is its artifactId less memory-pack-
            java.util.regex.Matcher name = java.util.regex.Pattern.compile("<automatic-module-name>([^<]+)</automatic-module-name>")
                    .matcher(Files.readString(ROOT.resolve(folder).resolve("pom.xml"), StandardCharsets.UTF_8));
            assertThat(name.find()).as("automatic-module-name of %s", folder).isTrue();
            published.add(name.group(1));
        }

        // when: the README's list (`io.github.memorypack.core`, then `.suffix` for the others)
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        int from = readme.indexOf("automatic module named after its root package");
        String list = readme.substring(from, readme.indexOf("\n- ", from) < 0 ? readme.length() : readme.indexOf("\n- ", from));
        java.util.Set<String> listed = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("`(io\\.github\\.memorypack)?(\\.?[a-z0-9.]+)`").matcher(list);
        while (m.find()) {
            String name = m.group(2);
            listed.add(name.startsWith(".") ? "io.github.memorypack" + name : "io.github.memorypack." + name);
        }

        // then
        assertThat(from).isPositive();
        assertThat(listed).isEqualTo(published);
    }

    /** Lines stripped of indentation and trailing space, blank lines dropped, joined by newlines. */
    private static String normalize(List<String> lines) {
        return lines.stream().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
    }

    private static List<String> javaSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .filter(p -> p.toString().contains("/src/test/") || p.toString().contains("/src/suite/")
                            || p.toString().contains("/samples/src/main/") || p.toString().contains("/samples/web-chat/src/main/"))
                    .map(ReadmeSnippetsTest::read)
                    .map(text -> normalize(text.lines().toList()))
                    .toList();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every {@code ```xml} block of every README of the repository, with its README, in path order. */
    private static List<Map.Entry<Path, String>> xmlBlocks() throws IOException {
        List<Path> readmes;
        try (Stream<Path> files = Files.walk(ROOT)) {
            readmes = files.filter(p -> p.getFileName().toString().equals("README.md"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/")).sorted().toList();
        }
        List<Map.Entry<Path, String>> blocks = new ArrayList<>();
        for (Path readme : readmes) {
            java.util.regex.Matcher block = java.util.regex.Pattern.compile("```xml\\n(.*?)```",
                    java.util.regex.Pattern.DOTALL).matcher(Files.readString(readme, StandardCharsets.UTF_8));
            while (block.find()) {
                blocks.add(Map.entry(readme, block.group(1)));
            }
        }
        return blocks;
    }
}
