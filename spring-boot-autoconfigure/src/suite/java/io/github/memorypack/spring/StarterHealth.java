package io.github.memorypack.spring;

import java.util.Map;

/**
 * What the {@code memoryPack} health indicator reported, in either generation's health API.
 *
 * @param status  the status code ({@code UP}, {@code DOWN})
 * @param details the indicator's details
 */
record StarterHealth(String status, Map<String, Object> details) {
}
