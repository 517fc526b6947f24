/**
 * Spring Boot auto-configuration for Memory Pack, the same on Spring Boot 3.5 and 4.x:
 * {@link io.github.memorypack.spring.MemoryPackAutoConfiguration} turns the {@code memory-pack.*}
 * properties ({@link io.github.memorypack.spring.MemoryPackProperties}) into a
 * {@link io.github.memorypack.core.SessionStore} bean and a LangChain4j
 * {@code ChatMemoryProvider} bean, plus metrics when Micrometer is present; a value that cannot work
 * fails the start with a report naming the property, its value and the fix. Applications add the
 * starter of their Spring Boot generation ({@code memory-pack-spring-boot-starter} for 3.5,
 * {@code memory-pack-spring-boot4-starter} for 4.x), which brings this module and adds the health
 * indicator and Spring Boot's Redis connection details of that generation. The properties are
 * {@link io.github.memorypack.core.Experimental}.
 *
 * <p><b>Null policy.</b> A property left unset reads as {@code null} from its getter where its
 * documentation says so (the strategy's or store's default then applies); everything else follows
 * {@link io.github.memorypack.core}: no {@code null} arguments, no {@code null} results.
 */
package io.github.memorypack.spring;
