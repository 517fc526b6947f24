package io.github.memorypack.samples;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import java.math.BigDecimal;
import java.math.RoundingMode;

/** The AiServices example's tool. */
public final class TravelTools {

    /**
     * Splits a budget evenly over the days of a trip.
     *
     * @throws IllegalArgumentException if {@code days < 1} or the budget is negative
     */
    @Tool("Daily budget in euros: splits a total budget in euros evenly over a number of days")
    public String dailyBudget(@P("total budget in euros") double totalEuros, @P("number of days") int days) {
        if (days < 1 || totalEuros < 0) {
            throw new IllegalArgumentException("need days >= 1 and a budget >= 0, got " + days + " and " + totalEuros);
        }
        return BigDecimal.valueOf(totalEuros).divide(BigDecimal.valueOf(days), 2, RoundingMode.HALF_UP).toPlainString()
                + " euros per day";
    }
}
