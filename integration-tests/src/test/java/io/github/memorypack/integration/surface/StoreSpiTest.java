package io.github.memorypack.integration.surface;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The store SPI's entry types speak the store's vocabulary only (issue 24): {@link NewEntry} and
 * {@link Entry} depend on no type of the engine (turn tags, request scopes, views), so a backend
 * reads them without knowing how memories use metadata. The package-private types they may use are
 * the SPI's own helpers.
 */
class StoreSpiTest {

    private static final String CORE = "io.github.memorypack.core";
    /** Package-private types that belong to the store SPI, not to the engine. */
    private static final Set<String> SPI_HELPERS = Set.of(CORE + ".ImmutableMetadata", CORE + ".Ids");

    private static final JavaClasses CORE_CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(CORE);

    /** A type of core's engine: package-private in core's root package, and not one of the SPI's helpers. */
    private static final DescribedPredicate<JavaClass> ENGINE = new DescribedPredicate<>("a type of core's engine") {
        @Override
        public boolean test(JavaClass type) {
            JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
            JavaClass outer = base;
            while (outer.getEnclosingClass().isPresent()) {
                outer = outer.getEnclosingClass().get();
            }
            return outer.getPackageName().equals(CORE) && !outer.getModifiers().contains(JavaModifier.PUBLIC)
                    && !SPI_HELPERS.contains(outer.getName());
        }
    };

    private static ArchRule noEngineIn(String... types) {
        return noClasses().that().haveNameMatching(String.join("|", escaped(types)))
                .should().dependOnClassesThat(ENGINE)
                .because("the store SPI must not import engine vocabulary");
    }

    private static String[] escaped(String... types) {
        String[] patterns = new String[types.length];
        for (int i = 0; i < types.length; i++) {
            patterns[i] = types[i].replace(".", "\\.").replace("$", "\\$") + "(\\$.*)?";
        }
        return patterns;
    }

    @Test
    void should_depend_on_no_engine_type_when_an_entry_type_is_compiled() {
        // given: core's main classes, the entry types among them
        assertThat(CORE_CLASSES.contain(NewEntry.class.getName())).isTrue();
        assertThat(CORE_CLASSES.contain(Entry.class.getName())).isTrue();

        // then
        noEngineIn(NewEntry.class.getName(), Entry.class.getName()).check(CORE_CLASSES);
    }

    @Test
    void should_report_a_violation_when_a_type_uses_the_engine() {
        // when: the same rule over the engine's appender, which writes turn tags
        ArchRule appender = noEngineIn(CORE + ".Appender");

        // then: the rule sees the engine's package-private types (so the check above can fail)
        assertThat(appender.evaluate(CORE_CLASSES).hasViolation()).isTrue();
    }
}
