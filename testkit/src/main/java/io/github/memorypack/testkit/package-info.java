/**
 * Test support for Memory Pack stores and memories (a test-scope dependency):
 * {@link io.github.memorypack.testkit.SessionStoreContract}, the store contract every
 * {@link io.github.memorypack.core.SessionStore} must pass, as an abstract JUnit 5 class;
 * {@link io.github.memorypack.testkit.MutableClock}, a clock tests move instead of sleeping;
 * {@link io.github.memorypack.testkit.SampleMessages}, one message of every LangChain4j type and
 * shape; and {@link io.github.memorypack.testkit.OpenAiTestServer}, a local OpenAI-compatible
 * server for offline end-to-end tests with the real LangChain4j OpenAI clients.
 *
 * <p><b>Null policy.</b> No parameter accepts {@code null} unless documented; no method returns
 * {@code null}.
 */
package io.github.memorypack.testkit;
