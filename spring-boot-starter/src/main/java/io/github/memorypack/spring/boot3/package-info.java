/**
 * What the Memory Pack auto-configuration ({@code io.github.memorypack.spring}) needs from Spring Boot
 * 3.5 in particular: the health indicator on Actuator's health API and the Redis store's connection
 * from Spring Boot's Redis connection details. Nothing here is public: applications use the
 * {@code memory-pack.*} properties and the beans of the auto-configuration.
 */
package io.github.memorypack.spring.boot3;
