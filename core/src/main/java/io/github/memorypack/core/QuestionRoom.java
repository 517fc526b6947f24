package io.github.memorypack.core;

/**
 * The room a token-limited view leaves for the question that follows it. LangChain4j's
 * {@code AiServices} reads {@code messages()} and then adds the new user message to what it sends, so
 * a view that fills its whole limit makes every request exceed it. When the view is read by a caller
 * that runs no turn yet (a new request), the limit is applied to the view plus:
 *
 * <ul>
 *   <li>the question itself, counted, when {@link RequestScope#aiServiceListeners()} saw the request
 *       start (LangChain4j's started event carries the user message; what {@code AiServices} adds to
 *       it later — retrieved content, output-format instructions — is not counted);</li>
 *   <li>otherwise an estimate: the longest of the last {@value #RECENT_QUESTIONS} questions in the
 *       view's dialogue, plus a quarter; nothing when there is none.</li>
 * </ul>
 *
 * A tool follow-up (the caller's own turn is running, its question already in the view) gets the whole
 * limit.
 */
final class QuestionRoom {

    /** How many recent questions the estimate looks at. */
    static final int RECENT_QUESTIONS = 3;

    private QuestionRoom() {
    }

    /** The tokens to leave free in a view of {@code dialogue} for the question that follows it. */
    static int tokens(Dialogue dialogue, ViewRules rules) {
        if (dialogue.pendingQuestionTokens >= 0) {
            return dialogue.pendingQuestionTokens;
        }
        int longest = 0;
        for (int t = recentFrom(dialogue); t < dialogue.turns.size(); t++) {
            DialogueTurn turn = dialogue.turns.get(t);
            if (turn.user != null) {
                longest = Math.max(longest, rules.storedTokens(turn.user));
            }
        }
        return longest + (longest + 3) / 4;
    }

    /**
     * The log index of the oldest question an estimate of {@link #tokens} reads in {@code dialogue}, or
     * {@code Long.MAX_VALUE} when it has none: whether or not this view left room (a tool follow-up
     * leaves none, a started request counts its own question), the next new request's view estimates
     * from these questions or newer ones. Retention keeps the log from there: a trimmed log would
     * estimate less room and show more than the same log untrimmed.
     */
    static long estimatedFrom(Dialogue dialogue) {
        int t = recentFrom(dialogue);
        return t < dialogue.turns.size() ? dialogue.turns.get(t).user.index() : Long.MAX_VALUE;
    }

    /**
     * The position in {@code dialogue.turns} of the oldest of the last {@value #RECENT_QUESTIONS}
     * turns that have a question (the estimate's range), or the number of turns when none has.
     */
    private static int recentFrom(Dialogue dialogue) {
        int from = dialogue.turns.size();
        for (int t = from - 1, seen = 0; t >= 0 && seen < RECENT_QUESTIONS; t--) {
            if (dialogue.turns.get(t).user != null) {
                from = t;
                seen++;
            }
        }
        return from;
    }
}
