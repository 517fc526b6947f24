/**
 * Spring Boot auto-configuration for Memory Pack:
 * {@link io.github.memorypack.spring.MemoryPackAutoConfiguration} turns the {@code memory-pack.*}
 * properties ({@link io.github.memorypack.spring.MemoryPackProperties}) into a
 * {@link io.github.memorypack.core.SessionStore} bean and a LangChain4j
 * {@code ChatMemoryProvider} bean, plus metrics and a health indicator when Micrometer and the
 * Actuator are present. The properties are {@link io.github.memorypack.core.Experimental}.
 *
 * <p><b>Null policy.</b> A property left unset reads as {@code null} from its getter where its
 * documentation says so (the strategy's or store's default then applies); everything else follows
 * {@link io.github.memorypack.core}: no {@code null} arguments, no {@code null} results.
 */
package io.github.memorypack.spring;
