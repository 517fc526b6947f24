package io.github.memorypack.integration.surface;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The public surface of compiled classes, read from their class files (ArchUnit's importer: no class
 * is loaded, so a module's optional dependencies need not be on the class path), and the rules it
 * must keep:
 * <ul>
 *   <li>no public type in an {@code internal} package;</li>
 *   <li>no accessible type (public, or a public/protected member type of an accessible type) of ours
 *       extends or implements a type of ours that is not accessible;</li>
 *   <li>no public or protected field, constructor or method of an accessible type names, anywhere in
 *       its signature (type arguments, bounds, throws clause included), a type of ours that is not
 *       accessible.</li>
 * </ul>
 * "Ours" is every class under {@link #ROOT}.
 */
final class PublicSurface {

    static final String ROOT = "io.github.memorypack.";
    static final String EXPERIMENTAL = "io.github.memorypack.core.Experimental";

    private final JavaClasses classes;

    private PublicSurface(JavaClasses classes) {
        this.classes = classes;
    }

    /**
     * The classes of the module (its jar or classes folder) that holds the class named
     * {@code anchorClass}. Types they refer to from elsewhere are not read (see
     * {@code archunit.properties}).
     */
    static PublicSurface ofModuleHolding(String anchorClass) {
        return new PublicSurface(new ClassFileImporter().importLocations(Set.of(Location.of(rootOf(anchorClass)))));
    }

    /** The classes of one package (and its subpackages) on the test class path. */
    static PublicSurface ofPackage(String packageName) {
        return new PublicSurface(new ClassFileImporter().importPackages(packageName));
    }

    /** Where the class files of the module that holds {@code className} are: a folder or a jar. */
    static URL rootOf(String className) {
        String resource = className.replace('.', '/') + ".class";
        URL url = Objects.requireNonNull(PublicSurface.class.getClassLoader().getResource(resource),
                () -> className + " is not on the test class path");
        String text = url.toString();
        try {
            return new URL(text.substring(0, text.length() - resource.length()));
        } catch (java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The public top-level types, by full name, sorted. */
    Set<String> publicTopLevelTypes() {
        return classes.stream()
                .filter(c -> c.isTopLevelClass() && isOurs(c) && c.getModifiers().contains(JavaModifier.PUBLIC))
                .map(JavaClass::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The accessible member types (public or protected, in accessible types), by full name, sorted. */
    Set<String> accessibleNestedTypes() {
        return classes.stream()
                .filter(c -> isOurs(c) && !c.isTopLevelClass() && isAccessible(c))
                .map(JavaClass::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * What is marked {@code @Experimental} ({@value #EXPERIMENTAL}): types by name, members by
     * {@code Type.member}, sorted.
     */
    Set<String> experimental() {
        Set<String> marked = new TreeSet<>();
        for (JavaClass type : classes) {
            if (!isOurs(type)) {
                continue;
            }
            if (type.isAnnotatedWith(EXPERIMENTAL)) {
                marked.add(type.getName());
            }
            for (JavaMember member : type.getMembers()) {
                if (member.isAnnotatedWith(EXPERIMENTAL)) {
                    marked.add(type.getName() + "." + member.getName());
                }
            }
        }
        return marked;
    }

    /** Every breach of the rules above, one line each; empty when the surface is clean. */
    List<String> violations() {
        List<String> violations = new ArrayList<>();
        for (JavaClass type : classes) {
            if (!isOurs(type)) {
                continue;
            }
            if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && isInternalPackage(type.getPackageName())) {
                violations.add(type.getName() + " is public in an internal package");
            }
            if (!isAccessible(type)) {
                continue;
            }
            type.getSuperclass().ifPresent(s -> hidden(s).forEach(h ->
                    violations.add(type.getName() + " extends " + h)));
            for (JavaType implemented : type.getInterfaces()) {
                hidden(implemented).forEach(h -> violations.add(type.getName() + " implements " + h));
            }
            for (JavaTypeVariable<JavaClass> variable : type.getTypeParameters()) {
                hidden(variable.getUpperBounds()).forEach(h ->
                        violations.add(type.getName() + " has a type parameter bounded by " + h));
            }
            for (JavaField field : type.getFields()) {
                if (isExposed(field)) {
                    hidden(field.getType()).forEach(h ->
                            violations.add(field.getFullName() + " exposes " + h));
                }
            }
            for (JavaCodeUnit unit : type.getCodeUnits()) {
                if (!isExposed(unit)) {
                    continue;
                }
                Set<JavaType> signature = new LinkedHashSet<>();
                signature.add(unit.getReturnType());
                signature.addAll(unit.getParameterTypes());
                signature.addAll(unit.getThrowsClause().getTypes());
                for (JavaTypeVariable<? extends JavaCodeUnit> variable : unit.getTypeParameters()) {
                    signature.addAll(variable.getUpperBounds());
                }
                hidden(signature).forEach(h -> violations.add(unit.getFullName() + " exposes " + h));
            }
        }
        return violations;
    }

    private Set<String> hidden(JavaType type) {
        return hidden(List.of(type));
    }

    private Set<String> hidden(Collection<? extends JavaType> types) {
        Set<String> hidden = new TreeSet<>();
        for (JavaType type : types) {
            for (JavaClass raw : type.getAllInvolvedRawTypes()) {
                JavaClass base = raw.isArray() ? raw.getBaseComponentType() : raw;
                // a type that is not among the classes read is in another package (so accessible, or
                // the code would not compile) or another library
                if (isOurs(base) && classes.contain(base.getName()) && !isAccessible(base)) {
                    hidden.add(base.getName() + " (not accessible)");
                }
            }
        }
        return hidden;
    }

    private static boolean isExposed(JavaMember member) {
        Set<JavaModifier> modifiers = member.getModifiers();
        return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
                && !modifiers.contains(JavaModifier.SYNTHETIC) && !modifiers.contains(JavaModifier.BRIDGE);
    }

    /** Public top-level, or a public/protected member type of an accessible type. */
    static boolean isAccessible(JavaClass type) {
        Set<JavaModifier> modifiers = type.getModifiers();
        if (type.isTopLevelClass()) {
            return modifiers.contains(JavaModifier.PUBLIC);
        }
        if (type.isAnonymousClass() || type.isLocalClass() || type.getEnclosingClass().isEmpty()) {
            return false;
        }
        return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
                && isAccessible(type.getEnclosingClass().get());
    }

    private static boolean isOurs(JavaClass type) {
        return type.getName().startsWith(ROOT);
    }

    private static boolean isInternalPackage(String packageName) {
        return List.of(packageName.split("\\.")).contains("internal");
    }
}
