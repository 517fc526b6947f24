package io.github.memorypack.integration;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Builder options issue 9 asks for that do not exist yet ({@code contextTokens(int)},
 * {@code summarizerTimeout(Duration)} on the summary builders), called by name so that the tests
 * using them compile today and run as written the day the option exists. Until then a test fails
 * here, saying which option is missing.
 */
final class PlannedOptions {

    private PlannedOptions() {
    }

    /**
     * Calls {@code builder.option(value)} with a parameter of type {@code type}.
     *
     * @throws AssertionError if the builder has no such public method (the option is not built yet)
     */
    static <B> B set(B builder, String option, Class<?> type, Object value) {
        Method method;
        try {
            method = builder.getClass().getMethod(option, type);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(builder.getClass().getName().replace('$', '.') + " has no " + option + "("
                    + type.getSimpleName() + ") yet: issue 9 asks for it", e);
        }
        try {
            method.invoke(builder, value);
            return builder;
        } catch (IllegalAccessException e) {
            throw new AssertionError("cannot call " + method, e);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new AssertionError(method + " failed", e.getCause());
        }
    }
}
