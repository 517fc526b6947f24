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

    /** The summarizing strategies on every store. */
    static Stream<Arguments> summariesAndStores() {
        return strategiesAndStores().filter(arguments -> ((Strategy) arguments.get()[0]).summarizes());
    }
}
