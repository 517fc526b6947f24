package io.github.memorypack.spring;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.util.ClassUtils;

/** Helpers of the starter suites that are the same on both Spring Boot generations. */
final class Starters {

    /** The starters' README (both generations share it), from either starter module's folder. */
    static final Path README = Path.of("..", "spring-boot-starter", "README.md");

    private Starters() {
    }

    /** The source file of a suite class, from either starter module's folder. */
    static Path suiteSource(Class<?> type) {
        return Path.of("..", "spring-boot-autoconfigure", "src", "suite", "java", type.getName().replace('.', '/') + ".java");
    }

    /**
     * Memory Pack's auto-configurations as the jars on the class path register them: the shared one
     * and the starter's of the generation under test.
     */
    static AutoConfigurations memoryPack() {
        ClassLoader loader = Starters.class.getClassLoader();
        List<Class<?>> classes = new ArrayList<>();
        for (String name : ImportCandidates.load(AutoConfiguration.class, loader)) {
            if (name.startsWith("io.github.memorypack.")) {
                classes.add(ClassUtils.resolveClassName(name, loader));
            }
        }
        if (classes.size() != 2) {
            throw new IllegalStateException("expected the shared and one generation's auto-configuration, found "
                    + classes);
        }
        return AutoConfigurations.of(classes.toArray(Class<?>[]::new));
    }
}
