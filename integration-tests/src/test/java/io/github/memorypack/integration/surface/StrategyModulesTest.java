package io.github.memorypack.integration.surface;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

/**
 * The strategy modules (buffer, window, summary, summary-buffer, memory-md's memory) are written
 * against core's public strategy SPI only, as a third party's strategy would be (issue 24): none of
 * their main classes depends on a core type that is not public, and no class outside core sits in
 * one of core's packages (the one way around package-private access).
 */
class StrategyModulesTest {

    private static final String CORE = "io.github.memorypack.core..";
    private static final String[] STRATEGY_MODULES = {"io.github.memorypack.buffer..", "io.github.memorypack.window..",
            "io.github.memorypack.summary..", "io.github.memorypack.summarybuffer..", "io.github.memorypack.memorymd.."};

    private static final JavaClasses MAIN_CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.github.memorypack");

    /** A core type another package cannot use: not public, or nested in one that is not. */
    private static final DescribedPredicate<JavaClass> CORE_INTERNAL =
            new DescribedPredicate<>("a core type that is not public") {
                @Override
                public boolean test(JavaClass type) {
                    return type.getPackageName().startsWith("io.github.memorypack.core") && !accessible(type);
                }
            };

    private static boolean accessible(JavaClass type) {
        JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
        if (!base.getModifiers().contains(JavaModifier.PUBLIC)) {
            return false;
        }
        return base.getEnclosingClass().map(StrategyModulesTest::accessible).orElse(true);
    }

    private static final ArchRule ONLY_PUBLIC_CORE = noClasses().that().resideInAnyPackage(STRATEGY_MODULES)
            .should().dependOnClassesThat(CORE_INTERNAL)
            .because("a strategy module uses only core's public API, as a third-party strategy must");

    @Test
    void should_use_only_core_public_types_when_a_strategy_module_is_compiled() {
        // given: the strategy modules' main classes are on the class path
        assertThat(MAIN_CLASSES.contain("io.github.memorypack.window.WindowChatMemory")).isTrue();
        assertThat(MAIN_CLASSES.contain("io.github.memorypack.summarybuffer.SummaryBufferChatMemory")).isTrue();
        assertThat(MAIN_CLASSES.contain("io.github.memorypack.memorymd.MemoryMdChatMemory")).isTrue();

        // then
        ONLY_PUBLIC_CORE.check(MAIN_CLASSES);
    }

    @Test
    void should_report_a_violation_when_classes_depend_on_core_internals() {
        // when: the same rule over core itself, which uses its own engine
        ArchRule coreOnItsInternals = noClasses().that().resideInAPackage(CORE)
                .should().dependOnClassesThat(CORE_INTERNAL);

        // then: the rule sees package-private types (so the check above can fail)
        assertThat(coreOnItsInternals.evaluate(MAIN_CLASSES).hasViolation()).isTrue();
    }

    @Test
    void should_keep_core_packages_to_core_when_another_module_is_compiled() {
        classes().that().resideInAPackage(CORE).should(new ArchCondition<>("be compiled in the core module") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                String source = type.getSource().map(s -> s.getUri().toString()).orElse("");
                boolean inCore = source.contains("/core/target/classes/") || source.contains("/memory-pack-core-");
                events.add(new SimpleConditionEvent(type, inCore, type.getName() + " is in " + source));
            }
        }).check(MAIN_CLASSES);
    }
}
