package io.github.memorypack.integration;

import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Parameter sources shared by the path tests ({@code @MethodSource("io.github.memorypack.integration.Cases#…")}). */
final class Cases {

    private Cases() {
    }

    /** Every strategy on every store of the path tests ({@link StoreKind#PATHS}). */
    static Stream<Arguments> strategiesAndStores() {
        return Arrays.stream(Strategy.values())
                .flatMap(strategy -> StoreKind.PATHS.stream().map(store -> Arguments.of(strategy, store)));
    }

    /**
     * {@link #strategiesAndStores()} without the samples' own strategy ({@link Strategy#TASK_BRIEF}), for the two
     * tests whose preconditions assume a memory that evicts its oldest turns first (the first tool turn is cut by
     * the booking round; a later view is a suffix of an earlier one): the task brief keeps the first turn by design.
     */
    static Stream<Arguments> oldestFirstStrategiesAndStores() {
        return strategiesAndStores().filter(arguments -> arguments.get()[0] != Strategy.TASK_BRIEF);
    }

    /** The summarizing strategies on every store. */
    static Stream<Arguments> summariesAndStores() {
        return strategiesAndStores().filter(arguments -> ((Strategy) arguments.get()[0]).summarizes());
    }
}
