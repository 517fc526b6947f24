package io.github.memorypack.benchmarks.heap;

import java.util.Locale;

/** One checkpoint of one variant, as the child JVM prints it and the parent reads it back. */
final class Measure {

    static final String PREFIX = "MEASURE ";

    final int sessions;
    final long heapUsed;
    final long openFiles;
    final int storeSessions;
    final int views;

    Measure(int sessions, long heapUsed, long openFiles, int storeSessions, int views) {
        this.sessions = sessions;
        this.heapUsed = heapUsed;
        this.openFiles = openFiles;
        this.storeSessions = storeSessions;
        this.views = views;
    }

    String line() {
        return String.format(Locale.ROOT, "%ssessions=%d heapUsed=%d openFiles=%d storeSessions=%d views=%d", PREFIX,
                sessions, heapUsed, openFiles, storeSessions, views);
    }

    static Measure parse(String line) {
        String[] fields = line.substring(PREFIX.length()).split(" ");
        long[] values = new long[fields.length];
        for (int i = 0; i < fields.length; i++) {
            values[i] = Long.parseLong(fields[i].substring(fields[i].indexOf('=') + 1));
        }
        return new Measure((int) values[0], values[1], values[2], (int) values[3], (int) values[4]);
    }
}
