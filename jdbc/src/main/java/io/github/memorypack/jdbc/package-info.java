/**
 * {@link io.github.memorypack.jdbc.JdbcSessionStore}: a
 * {@link io.github.memorypack.core.SessionStore} on any JDBC {@code DataSource} (PostgreSQL and H2
 * dialects): one row per entry, one versioned state row per session, appends in one short
 * transaction under a per-session lock. No ORM and no driver is bundled; the schema is created by
 * the store or by the application's migrations (DDL shipped as resources).
 *
 * <p><b>Null policy.</b> As in {@link io.github.memorypack.core}: no parameter accepts
 * {@code null} unless documented (the idempotency key of an append); no method returns
 * {@code null}.
 */
package io.github.memorypack.jdbc;
