package io.github.memorypack.core;

/**
 * Token ceilings as the views of one builder's memories apply them: when calibration is on
 * ({@code calibrateWith}), a ceiling is divided by the session's calibration factor from the
 * {@link TokenAccounting} ledger (reported ÷ estimated prompt tokens), so a tokenizer that counts
 * low still keeps the request within the model's context; when it is off, ceilings and factors are
 * as they are. A shared rule of the engine, not a strategy's. Thread-safe; one instance per
 * {@link SessionMemory.Shared}.
 */
final class Calibration {

    private final TokenAccounting accounting;
    private final boolean calibrate;

    Calibration(TokenAccounting accounting, boolean calibrate) {
        this.accounting = accounting;
        this.calibrate = calibrate;
    }

    /**
     * A token limit as the view applies it: divided by the session's calibration factor when
     * calibration is on (the factor rounded to 1%, so the limit, and with it the cached view, changes
     * only when the factor really moves), else as it is.
     */
    int calibrated(String sessionId, int tokens) {
        if (!calibrate) {
            return tokens;
        }
        double factor = Math.round(accounting.factor(sessionId) * 100) / 100.0;
        return Math.max(1, (int) Math.floor(tokens / factor));
    }

    /** The limit a view applies for {@code plan}: its token ceiling calibrated when calibration is on. */
    ViewLimit limitOf(String sessionId, MemoryStrategy.Plan plan) {
        ViewLimit limit = plan.limit;
        return calibrate && limit.countsTokens() ? plan.limitOf(calibrated(sessionId, limit.value())) : limit;
    }

    /** The factor token counts are multiplied by for budget decisions: the session's when calibrating, else 1. */
    double factor(String sessionId) {
        return calibrate ? accounting.factor(sessionId) : 1.0;
    }
}
