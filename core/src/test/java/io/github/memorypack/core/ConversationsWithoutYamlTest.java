package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * YAML is an optional dependency of core: with core's classes loaded where
 * {@code jackson-dataformat-yaml} cannot be seen (as in an application that did not add it), YAML
 * export and import fail with a {@link MemoryPackException} naming the artifact before they touch the
 * store, and JSON still works.
 */
class ConversationsWithoutYamlTest {

    private static final String HIDDEN = "com.fasterxml.jackson.dataformat.yaml.";

    @Test
    void should_name_the_missing_artifact_before_any_io_when_yaml_is_used_without_its_dependency() throws Exception {
        try (WithoutYaml loader = new WithoutYaml()) {
            // given: core as an application without jackson-dataformat-yaml sees it, over a store that records calls
            Class<?> conversations = loader.loadClass(Conversations.class.getName());
            Class<?> storeType = loader.loadClass(SessionStore.class.getName());
            Class<?> format = loader.loadClass(Conversations.Format.class.getName());
            Class<?> mode = loader.loadClass(Conversations.ImportMode.class.getName());
            Object emptyState = loader.loadClass(SessionState.class.getName()).getField("EMPTY").get(null);
            List<String> calls = new ArrayList<>();
            Object store = Proxy.newProxyInstance(loader, new Class<?>[] {storeType}, (proxy, method, args) -> {
                calls.add(method.getName());
                switch (method.getName()) {
                    case "read": return List.of();
                    case "state": return emptyState;
                    case "nextIndex": return 0L;
                    default: throw new UnsupportedOperationException(method.getName());
                }
            });
            Method export = conversations.getMethod("export", storeType, String.class, format);
            Method importSession = conversations.getMethod("importSession", storeType, String.class, String.class,
                    format, mode);

            // when
            Throwable exported = cause(() -> export.invoke(null, store, "s", constant(format, "YAML")));
            Throwable imported = cause(() -> importSession.invoke(null, store, "s", "format: x", constant(format, "YAML"),
                    constant(mode, "NEW_SESSION_ONLY")));

            // then
            for (Throwable failure : List.of(exported, imported)) {
                assertThat(failure.getClass().getName()).isEqualTo(MemoryPackException.class.getName());
                assertThat(failure).hasMessageContaining("com.fasterxml.jackson.dataformat:jackson-dataformat-yaml")
                        .hasMessageContaining("Format.JSON");
            }
            assertThat(calls).as("store calls before the error").isEmpty();
            Object json = export.invoke(null, store, "s", constant(format, "JSON"));
            assertThat((String) json).contains("\"format\" : \"memory-pack-session\"");
            assertThat(calls).containsExactly("read", "state", "nextIndex");
        }
    }

    private static Object constant(Class<?> enumType, String name) {
        for (Object constant : enumType.getEnumConstants()) {
            if (((Enum<?>) constant).name().equals(name)) {
                return constant;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static Throwable cause(ThrowingCall call) {
        Throwable thrown = catchThrowable(call::run);
        assertThat(thrown).isInstanceOf(InvocationTargetException.class);
        return thrown.getCause();
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    /**
     * Loads core's own classes itself (from core's class folder) and everything else from the test's
     * class loader, except the YAML package, which it cannot find.
     */
    private static final class WithoutYaml extends URLClassLoader {

        WithoutYaml() throws IOException {
            super(new URL[] {Conversations.class.getProtectionDomain().getCodeSource().getLocation()},
                    ConversationsWithoutYamlTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (name.startsWith(HIDDEN)) {
                    throw new ClassNotFoundException(name + " (not on this class path)");
                }
                if (!name.startsWith("io.github.memorypack.core.")) {
                    return super.loadClass(name, resolve);
                }
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = findClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
