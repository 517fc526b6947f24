package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.spring.readme.ChatApplication;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootVersion;

/**
 * The starter README's four applications (in memory, file, Redis, JDBC), built and started as a user
 * would: a Maven build of exactly the README's dependencies (under Spring Boot's parent of the
 * generation under test, with Memory Pack's BOM as the README imports it) resolves each application's
 * class path, and the README's {@link ChatApplication} starts on that class path alone with the README's
 * {@code application.properties}, then answers a chat and remembers it in the next one. The Memory Pack
 * artifacts come from this build (their classes and poms, put in a local repository of the test's own);
 * everything else from Maven Central, through {@code ~/.m2} first.
 */
class ReadmeApplicationsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** In the build directory (target/, or a profile's own). */
    private static final Path WORK = classesOf(ChatApplication.class).getParent().resolve("readme-apps");

    private static OpenAiTestServer openAi;
    private static TestRedisServer redis;
    private static EmbeddedPostgres postgres;
    private static Map<String, List<Path>> classPaths;
    private static String readme;

    @BeforeAll
    static void build() throws Exception {
        readme = Files.readString(Starters.README, StandardCharsets.UTF_8);
        openAi = new OpenAiTestServer();
        openAi.answerWith(request -> OpenAiTestServer.Reply.text("Noted (" + request.lastLine() + ")."));
        redis = TestRedisServer.start();
        postgres = EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start();
        classPaths = resolve(List.of("in-memory", "file", "redis", "jdbc", "health"));
    }

    @AfterAll
    static void stop() throws IOException {
        openAi.close();
        redis.close();
        postgres.close();
    }

    @Test
    void should_show_in_the_readme_the_application_this_test_starts() throws IOException {
        String source = Files.readString(Starters.suiteSource(ChatApplication.class), StandardCharsets.UTF_8);
        String start = "// --- README application starts\n";
        String code = source.substring(source.indexOf(start) + start.length(),
                source.indexOf("// --- README application ends"));
        assertThat(normalized(block(readme, "java", 0))).isEqualTo(normalized(code));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in-memory", "file", "redis", "jdbc", "health"})
    void should_start_and_answer_a_chat_when_built_from_the_readme(String store) throws Exception {
        // given: the README's application.properties next to the application's classes, and what the test
        // environment changes (where the servers are, the keys)
        Path classes = WORK.resolve(store).resolve("classes");
        copyApplicationClasses(classes);
        Files.writeString(classes.resolve("application.properties"), block(section(store), "properties", 0));
        List<String> arguments = new ArrayList<>(List.of("--OPENAI_API_KEY=test-key",
                "--openai.base-url=" + openAi.baseUrl(), "--spring.main.banner-mode=off",
                "--logging.level.root=WARN"));
        switch (store) {
            case "file" -> arguments.add("--memory-pack.store.file.directory="
                    + Files.createTempDirectory("readme-file-store"));
            case "redis" -> arguments.addAll(List.of("--spring.data.redis.host=127.0.0.1",
                    "--spring.data.redis.port=" + redis.port()));
            case "jdbc" -> arguments.addAll(List.of("--spring.datasource.url=jdbc:postgresql://127.0.0.1:"
                    + postgres.getPort() + "/postgres", "--spring.datasource.username=postgres",
                    "--DB_PASSWORD=postgres"));
            case "health" -> arguments.add("--server.port=0");
            default -> {
            }
        }
        List<URL> urls = new ArrayList<>();
        urls.add(classes.toUri().toURL());
        for (Path jar : classPaths.get(store)) {
            urls.add(jar.toUri().toURL());
        }

        // when: the application starts on that class path alone, and is asked twice
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(loader);
            Class<?> application = loader.loadClass(ChatApplication.class.getName());
            try (AutoCloseable context = (AutoCloseable) loader.loadClass("org.springframework.boot.SpringApplication")
                    .getMethod("run", Class.class, String[].class)
                    .invoke(null, application, arguments.toArray(String[]::new))) {
                Object assistant = bean(context, loader.loadClass(ChatApplication.Assistant.class.getName()));
                String user = "ada-" + store + "-" + System.nanoTime();
                Object first = ask(assistant, user, "Hi, I'm Ada and I live in Lyon.");
                ask(assistant, user, "Where do I live?");

                // then: an answer, the second request carried the first turn, on the README's store
                assertThat(first).asString().startsWith("Noted");
                assertThat(openAi.requests().get(openAi.requests().size() - 1).history())
                        .contains("user: Hi, I'm Ada and I live in Lyon.");
                assertThat(bean(context, loader.loadClass("io.github.memorypack.core.SessionStore")).getClass()
                        .getSimpleName()).isEqualTo(Map.of("in-memory", "InMemorySessionStore", "file",
                        "FileSessionStore", "redis", "RedisSessionStore", "jdbc", "JdbcSessionStore", "health",
                        "InMemorySessionStore").get(store));
                if (store.equals("health")) {
                    // and: the health component and the meters over HTTP, as the README says
                    Object environment = context.getClass().getMethod("getEnvironment").invoke(context);
                    String port = (String) environment.getClass().getMethod("getProperty", String.class)
                            .invoke(environment, "local.server.port");
                    assertThat(get(port, "/actuator/health/memoryPack")).isEqualTo(
                            "200 {\"status\":\"UP\",\"details\":{\"store\":\"InMemorySessionStore\"}}");
                    assertThat(get(port, "/actuator/metrics/memorypack.view.tokens"))
                            .startsWith("200 ").contains("\"name\":\"memorypack.view.tokens\"", "\"COUNT\"");
                }
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** The status and body of a GET to the application (JSON with its fields in a fixed order, whatever Boot's). */
    private static String get(String port, String path) throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        if (response.statusCode() == 200 && path.startsWith("/actuator/health/")) {
            com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
            com.fasterxml.jackson.databind.JsonNode node = json.readTree(body);
            body = "{\"status\":" + node.get("status") + ",\"details\":" + node.get("details") + "}";
        }
        return response.statusCode() + " " + body;
    }

    private static Object bean(AutoCloseable context, Class<?> type) throws Exception {
        return context.getClass().getMethod("getBean", Class.class).invoke(context, type);
    }

    private static Object ask(Object assistant, String user, String message) throws Exception {
        return assistant.getClass().getMethod("chat", String.class, String.class).invoke(assistant, user, message);
    }

    /**
     * One Maven build of the README's applications (one module each) that writes each one's runtime class
     * path; Memory Pack's artifacts are this build's, put in the test's local repository.
     */
    private static Map<String, List<Path>> resolve(List<String> stores) throws Exception {
        Path repository = WORK.resolve("repository");
        String version = tag(Files.readString(ROOT.resolve("pom.xml")), "version");
        install(repository, version);
        Path project = WORK.resolve("project");
        Files.createDirectories(project);
        StringBuilder modules = new StringBuilder();
        String starter = tag(Files.readString(Path.of("pom.xml")), "artifactId");
        String management = block(readme, "xml", 0);
        for (String store : stores) {
            modules.append("<module>").append(store).append("</module>");
            String dependencies = block(section(store), "xml", 0)
                    .replace("<artifactId>memory-pack-spring-boot4-starter</artifactId>",
                            "<artifactId>" + starter + "</artifactId>");
            if (!SpringBootVersion.getVersion().startsWith("4.")) { // the README's note: Boot 3.5 names it -web
                dependencies = dependencies.replace("<artifactId>spring-boot-starter-webmvc</artifactId>",
                        "<artifactId>spring-boot-starter-web</artifactId>");
            }
            Files.createDirectories(project.resolve(store));
            Files.writeString(project.resolve(store).resolve("pom.xml"), """
                    <project xmlns="http://maven.apache.org/POM/4.0.0">
                      <modelVersion>4.0.0</modelVersion>
                      <parent>
                        <groupId>org.springframework.boot</groupId>
                        <artifactId>spring-boot-starter-parent</artifactId>
                        <version>%s</version>
                        <relativePath/>
                      </parent>
                      <groupId>com.example</groupId>
                      <artifactId>chat-%s</artifactId>
                      <version>1</version>
                      %s
                      %s
                    </project>
                    """.formatted(SpringBootVersion.getVersion(), store, management, dependencies));
        }
        Files.writeString(project.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId>
                  <artifactId>chat-apps</artifactId>
                  <version>1</version>
                  <packaging>pom</packaging>
                  <modules>%s</modules>
                </project>
                """.formatted(modules));
        // Maven Central, with the user's ~/.m2 consulted first (as a repository, never written to)
        Path userRepository = Path.of(System.getProperty("user.home"), ".m2", "repository");
        Path settings = WORK.resolve("settings.xml");
        Files.writeString(settings, """
                <settings>
                  <profiles><profile><id>cache</id>
                    <repositories><repository><id>user-m2</id><url>%1$s</url>
                      <snapshots><enabled>false</enabled></snapshots></repository></repositories>
                    <pluginRepositories><pluginRepository><id>user-m2</id><url>%1$s</url>
                      <snapshots><enabled>false</enabled></snapshots></pluginRepository></pluginRepositories>
                  </profile></profiles>
                  <activeProfiles><activeProfile>cache</activeProfile></activeProfiles>
                </settings>
                """.formatted(userRepository.toUri()));
        Process maven = new ProcessBuilder("mvn", "-B", "-q", "-s", settings.toString(),
                "-Dmaven.repo.local=" + repository, "-f", project.resolve("pom.xml").toString(),
                "org.apache.maven.plugins:maven-dependency-plugin:" + System.getProperty("dependency-plugin.version") + ":build-classpath", "-Dmdep.outputFile=classpath.txt", "-Dmdep.includeScope=runtime")
                .redirectErrorStream(true).redirectOutput(WORK.resolve("maven.log").toFile()).start();
        assertThat(maven.waitFor(10, TimeUnit.MINUTES)).as("the README applications' Maven build finished").isTrue();
        assertThat(maven.exitValue()).as("the README applications' Maven build (%s):%n%s", WORK.resolve("maven.log"),
                Files.readString(WORK.resolve("maven.log"))).isZero();
        Map<String, List<Path>> paths = new LinkedHashMap<>();
        for (String store : stores) {
            String text = Files.readString(project.resolve(store).resolve("classpath.txt")).strip();
            paths.put(store, Stream.of(text.split(File.pathSeparator)).map(Path::of).toList());
        }
        return paths;
    }

    /**
     * This build's Memory Pack artifacts, as {@code mvn install} would lay them out: the root pom and the
     * BOM, and each module of this build on the test's class path (its jar, or its classes folder zipped).
     */
    private static void install(Path repository, String version) throws IOException {
        put(repository, "memory-pack-parent", version, ROOT.resolve("pom.xml"), null);
        put(repository, "memory-pack-bom", version, ROOT.resolve("bom/pom.xml"), null);
        List<String> entries = new ArrayList<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        entries.add(classesOf(ChatApplication.class).resolveSibling("classes").toString()); // this module's
        for (String entry : entries) {
            Path path = Path.of(entry).toAbsolutePath().normalize();
            boolean classes = Files.isDirectory(path) && path.getFileName().toString().equals("classes");
            boolean jar = entry.endsWith("-" + version + ".jar");
            if (path.startsWith(ROOT) && path.getNameCount() > ROOT.getNameCount() && (classes || jar)) {
                Path pom = ROOT.resolve(path.getName(ROOT.getNameCount())).resolve("pom.xml");
                put(repository, artifactId(pom), version, pom, path);
            }
        }
    }

    /** The folder a class was loaded from. */
    private static Path classesOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One artifact: its pom, and its jar ({@code classes}: a jar, a classes folder, or {@code null} for a pom). */
    private static void put(Path repository, String artifactId, String version, Path pom, Path classes)
            throws IOException {
        Path folder = repository.resolve("io/github/memorypack").resolve(artifactId).resolve(version);
        Files.createDirectories(folder);
        Files.copy(pom, folder.resolve(artifactId + "-" + version + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (classes != null && !Files.isDirectory(classes)) {
            Files.copy(classes, folder.resolve(artifactId + "-" + version + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        } else if (classes != null) {
            try (OutputStream out = Files.newOutputStream(folder.resolve(artifactId + "-" + version + ".jar"));
                 JarOutputStream jar = new JarOutputStream(out);
                 Stream<Path> files = Files.walk(classes)) {
                for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                    jar.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                    Files.copy(file, jar);
                    jar.closeEntry();
                }
            }
        }
    }

    /** The README application's own classes (the class and its nested interface), and nothing else of the tests. */
    private static void copyApplicationClasses(Path classes) throws IOException {
        String folder = ChatApplication.class.getPackageName().replace('.', '/');
        Path from = classesOf(ChatApplication.class).resolve(folder);
        Path to = classes.resolve(folder);
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, to.resolve(file.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** The README's part for a store: from its {@code ### } heading to the next heading. */
    private static String section(String store) {
        String heading = Map.of("in-memory", "### In memory", "file", "### File", "redis", "### Redis",
                "jdbc", "### JDBC", "health", "### Health and metrics").get(store);
        int from = readme.indexOf("\n" + heading);
        assertThat(from).as("README section %s", heading).isPositive();
        int to = readme.indexOf("\n#", from + 1);
        return readme.substring(from, to < 0 ? readme.length() : to);
    }

    /** The n-th fenced block of a language in a text. */
    private static String block(String text, String language, int n) {
        Matcher m = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(text);
        for (int i = 0; i <= n; i++) {
            assertThat(m.find()).as("```%s block %d", language, i).isTrue();
        }
        return m.group(1);
    }

    private static String artifactId(Path pom) throws IOException {
        String text = Files.readString(pom);
        return tag(text.substring(text.indexOf("</parent>")), "artifactId");
    }

    /** The first {@code <tag>} after the parent of a pom (or of the text given). */
    private static String tag(String pom, String tag) {
        String text = pom.contains("</parent>") ? pom.substring(pom.indexOf("</parent>")) : pom;
        Matcher m = Pattern.compile("<" + tag + ">([^<]+)</" + tag + ">").matcher(text);
        if (!m.find()) {
            throw new UncheckedIOException(new IOException("no <" + tag + "> in the pom"));
        }
        return m.group(1).strip();
    }

    private static String normalized(String code) {
        return code.lines().map(String::strip).filter(line -> !line.isEmpty()).reduce("", (a, b) -> a + b + "\n");
    }
}
