package io.github.memorypack.core;

import java.util.AbstractMap;

/**
 * An entry's metadata map that no one can change: every mutator throws
 * {@link UnsupportedOperationException} and subclasses hold their entries in final fields. A
 * {@link NewEntry} keeps such a map as it is instead of copying it (a copy would cost a hashed map
 * per append); any other map it copies. Part of the store SPI's vocabulary, not the engine's: it says
 * nothing about what the keys mean. Subclasses implement {@link #get}, {@link #size} and
 * {@link #entrySet} and must be equal to, and hash like, any map with the same entries (as
 * {@link AbstractMap} does).
 */
abstract class ImmutableMetadata extends AbstractMap<String, String> {

    @Override
    public final String put(String key, String value) {
        throw new UnsupportedOperationException("metadata is immutable");
    }

    @Override
    public final String remove(Object key) {
        throw new UnsupportedOperationException("metadata is immutable");
    }

    @Override
    public final void clear() {
        throw new UnsupportedOperationException("metadata is immutable");
    }
}
