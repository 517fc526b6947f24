package io.github.memorypack.core.file;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;

/**
 * The names of one session's files. Every kind of file ends in a suffix that is not the end of any
 * other kind's suffix, so {@code <id><suffix>} of one session can never equal a file name of another
 * session (with {@code <id>.trimmed.jsonl} as the archive, session {@code a.trimmed}'s log would be
 * session {@code a}'s archive).
 */
final class SessionFiles {

    static final String LOG = ".jsonl";
    static final String STATE = ".state.json";
    static final String LOCK = ".lock";
    static final String ARCHIVE = ".jsonl.trimmed";
    static final String TEMP = ".tmp";
    static final String TORN = ".torn-";

    private static final DateTimeFormatter TORN_STAMP =
            DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);
    // a set-aside file name ends in a stamp without dots, which no other kind of file name does
    private static final Pattern TORN_SUFFIX = Pattern.compile("\\d{8}T\\d{9}Z(-\\d+)?");

    final String sessionId;
    final Path directory;
    final Path log;
    final Path state;
    final Path lock;
    final Path archive;
    final Path logTemp;
    final Path stateTemp;

    SessionFiles(Path directory, String sessionId) {
        this.sessionId = sessionId;
        this.directory = directory;
        this.log = directory.resolve(sessionId + LOG);
        this.state = directory.resolve(sessionId + STATE);
        this.lock = directory.resolve(sessionId + LOCK);
        this.archive = directory.resolve(sessionId + ARCHIVE);
        this.logTemp = directory.resolve(sessionId + LOG + TEMP);
        this.stateTemp = directory.resolve(sessionId + STATE + TEMP);
    }

    /** Where the torn tail of {@code file} found at {@code at} is set aside; {@code attempt} > 0 on a name clash. */
    static Path tornFile(Path file, Instant at, int attempt) {
        String name = file.getFileName() + TORN + TORN_STAMP.format(at) + (attempt == 0 ? "" : "-" + attempt);
        return file.resolveSibling(name);
    }

    /** True if {@code fileName} is a set-aside torn tail of this session's log or archive. */
    boolean isTornFile(String fileName) {
        for (String of : new String[] {sessionId + LOG + TORN, sessionId + ARCHIVE + TORN}) {
            if (fileName.startsWith(of) && TORN_SUFFIX.matcher(fileName.substring(of.length())).matches()) {
                return true;
            }
        }
        return false;
    }

    /** The session id a log or state file belongs to, or {@code null} for any other file. */
    static String sessionIdOf(String fileName) {
        if (fileName.endsWith(LOG)) {
            return fileName.substring(0, fileName.length() - LOG.length());
        }
        if (fileName.endsWith(STATE)) {
            return fileName.substring(0, fileName.length() - STATE.length());
        }
        return null;
    }
}
