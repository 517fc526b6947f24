package io.github.memorypack.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.util.Comparator;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.validation.FieldError;
import org.springframework.validation.ObjectError;

/**
 * Spring Boot's "APPLICATION FAILED TO START" report for every {@code memory-pack.*} value that cannot
 * work: each one's property, value (with where it was set) and reason, and the fix. It reports a
 * {@link MemoryPackConfigurationException} (thrown while the store or the provider is created) and a
 * failure to bind or validate {@code memory-pack.*}, wherever it is in the failure's causes, ahead of
 * Spring Boot's own analyzers: a missing bean the configuration names is reported here, not as a bean the
 * application should define. Registered in {@code META-INF/spring.factories}; Spring Boot creates it.
 */
final class MemoryPackFailureAnalyzer implements FailureAnalyzer, Ordered {

    private static final String HEADER = "Memory Pack cannot start with this configuration:";

    private final Environment environment;

    /** @param environment the failed application's environment, where values and their origins are looked up; may be {@code null} */
    MemoryPackFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof MemoryPackConfigurationException e) {
                return analysis(e);
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BindException e && e.getName().toString().startsWith("memory-pack")) {
                if (e.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
                    return analysis(unbound, e);
                }
                return e.getCause() instanceof BindValidationException invalid ? analysis(invalid, e) : analysis(e);
            }
        }
        return null;
    }

    private FailureAnalysis analysis(MemoryPackConfigurationException e) {
        ConfigurationProperty bound = lookUp(e.property());
        Object value = bound != null ? bound.getValue() : e.value();
        return new FailureAnalysis(HEADER + "\n\n" + block(e.property(), value, bound == null ? null : bound.getOrigin(),
                e.reason()), e.action(), e);
    }

    /** The properties' own validation ({@link MemoryPackProperties#validate}): each rejected value with its fix. */
    private FailureAnalysis analysis(BindValidationException invalid, BindException e) {
        List<String> blocks = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        for (ObjectError error : invalid.getValidationErrors().getAllErrors()) {
            String message = String.valueOf(error.getDefaultMessage());
            if (error instanceof FieldError field) {
                String property = PropertiesCheck.property(field.getField());
                ConfigurationProperty bound = lookUp(property);
                Origin origin = Origin.from(field);
                blocks.add(block(property, bound != null ? bound.getValue() : field.getRejectedValue(),
                        origin != null ? origin : bound == null ? null : bound.getOrigin(),
                        message.startsWith(property + " ") ? message.substring(property.length() + 1) : message));
            } else {
                blocks.add("    Reason: " + message);
            }
            Object[] arguments = error.getArguments();
            fixes.add(PropertiesCheck.INVALID.equals(error.getCode()) && arguments != null && arguments.length == 1
                    ? String.valueOf(arguments[0]) : "Correct the value.");
        }
        return new FailureAnalysis(HEADER + "\n\n" + String.join("\n\n", blocks), String.join("\n", fixes), e);
    }

    /** A {@code memory-pack.*} name that is no property (misspelt, or of another version): the one meant. */
    private FailureAnalysis analysis(UnboundConfigurationPropertiesException unbound, BindException e) {
        List<String> known = propertyNames("memory-pack", MemoryPackProperties.class);
        List<String> blocks = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        for (ConfigurationProperty property : unbound.getUnboundProperties()) {
            String name = property.getName().toString();
            String meant = known.stream().min(Comparator.comparingInt((String k) -> distance(k, name))
                    .thenComparing(Comparator.naturalOrder())).orElseThrow();
            blocks.add(block(name, property.getValue(), property.getOrigin(), "is no Memory Pack property"));
            fixes.add("Rename " + name + " (did you mean " + meant + "?) or remove it.");
        }
        fixes.add("The properties are memory-pack." + known.stream().map(k -> k.substring("memory-pack.".length()))
                .collect(Collectors.joining(", ")) + ".");
        return new FailureAnalysis(HEADER + "\n\n" + String.join("\n\n", blocks), String.join("\n", fixes), e);
    }

    /** Every property name under {@code prefix} that {@code type} binds, in Spring's kebab case, sorted. */
    static List<String> propertyNames(String prefix, Class<?> type) {
        List<String> names = new ArrayList<>();
        try {
            for (PropertyDescriptor d : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
                if (d.getReadMethod() == null) {
                    continue;
                }
                String name = prefix + "." + d.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
                Class<?> nested = d.getPropertyType();
                if (nested.getDeclaringClass() == MemoryPackProperties.class && !nested.isEnum()) {
                    names.addAll(propertyNames(name, nested));
                } else if (d.getWriteMethod() != null) {
                    names.add(name);
                }
            }
        } catch (IntrospectionException ex) {
            throw new IllegalStateException(ex);
        }
        names.sort(null);
        return names;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** A value Spring cannot convert to the property's type (a misspelt strategy, a word for a number). */
    private FailureAnalysis analysis(BindException e) {
        ConfigurationProperty property = e.getProperty();
        String name = property != null ? property.getName().toString() : e.getName().toString();
        Class<?> type = e.getTarget().getType().resolve(Object.class);
        // a conversion failure says no more than "cannot be read as"; anything else gets its message too
        String reason = "cannot be read as " + expected(type) + (e.getCause() == null
                || e.getCause() instanceof org.springframework.core.convert.ConversionException ? ""
                : " (" + SessionStores.rootMessage(e.getCause()) + ")");
        return new FailureAnalysis(HEADER + "\n\n" + block(name, property == null ? null : property.getValue(),
                property == null ? null : property.getOrigin(), reason),
                "Set " + name + " to " + expected(type) + ".", e);
    }

    private static String expected(Class<?> type) {
        if (type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants())
                    .map(c -> ((Enum<?>) c).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .collect(Collectors.joining(", "));
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == Duration.class) {
            return "a duration such as 500ms, 30s or 2h";
        }
        if (type == Path.class) {
            return "a folder's path";
        }
        return "a " + type.getSimpleName();
    }

    private static String block(String property, Object value, Origin origin, String reason) {
        StringBuilder block = new StringBuilder("    Property: ").append(property);
        block.append("\n    Value: ").append(value == null ? "(not set)" : "\"" + masked(value.toString()) + "\"");
        if (origin != null) {
            block.append("\n    Origin: ").append(origin);
        }
        return block.append("\n    Reason: ").append(reason).toString();
    }

    /** A URL's password hidden ({@code redis://user:******@host}): reports end up in logs. */
    static String masked(String value) {
        return value.replaceAll("//([^:@/]*):[^@/]*@", "//$1:******@");
    }

    /** The property as the application's environment has it (its value and where it was set), or {@code null}. */
    private ConfigurationProperty lookUp(String property) {
        if (environment == null || !ConfigurationPropertyName.isValid(property)) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty found = source.getConfigurationProperty(name);
            if (found != null) {
                return found;
            }
        }
        return null;
    }
}
