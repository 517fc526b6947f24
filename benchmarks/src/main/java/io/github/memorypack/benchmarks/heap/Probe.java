package io.github.memorypack.benchmarks.heap;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * Reads, by reflection, the sizes of the bounded caches the benchmark reports: the sessions a
 * {@link FileSessionStore} keeps parsed and the views in the view cache of a provider's memories. Both are package-private on purpose; -1 when not available.
 */
final class Probe {

    private Probe() {
    }

    static int fileStoreSessions(SessionStore store) {
        if (!(store instanceof FileSessionStore)) {
            return -1;
        }
        try {
            Field cache = FileSessionStore.class.getDeclaredField("cache");
            cache.setAccessible(true);
            Map<?, ?> map = (Map<?, ?>) cache.get(store);
            synchronized (map) {
                return map.size();
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    /** The views held by the view cache a provider's memories use (found by walking its fields), or -1. */
    static int views(Object provider) {
        Object cache = find(provider, "io.github.memorypack.core.ViewCache", 6);
        if (cache == null) {
            return -1;
        }
        try {
            Method size = cache.getClass().getDeclaredMethod("size");
            size.setAccessible(true);
            return (Integer) size.invoke(cache);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    private static Object find(Object from, String className, int depth) {
        if (from == null || depth < 0) {
            return null;
        }
        if (from.getClass().getName().equals(className)) {
            return from;
        }
        if (from.getClass().getName().startsWith("java.")) {
            return null;
        }
        for (Class<?> type = from.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (field.getType().isPrimitive() || java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                try {
                    field.setAccessible(true);
                    Object found = find(field.get(from), className, depth - 1);
                    if (found != null) {
                        return found;
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not readable: look elsewhere
                }
            }
        }
        return null;
    }
}
