package io.github.memorypack.benchmarks.jdbc;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The baseline: the design of the LangChain4j community SQL chat memory store — one row per
 * conversation whose {@code content} column holds the whole message list as one JSON value
 * (LangChain4j's {@link ChatMessageSerializer} format), read with one {@code SELECT} and rewritten
 * with one upsert ({@code INSERT … ON CONFLICT DO UPDATE}) on every update. Benchmark-only; not a
 * store anyone should use.
 */
final class RewriteJsonJdbcStore implements ChatMemoryStore {

    private final DataSource dataSource;
    private final String table;

    RewriteJsonJdbcStore(DataSource dataSource, String table) {
        this.dataSource = dataSource;
        this.table = table;
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + table + " (memory_id VARCHAR(255) PRIMARY KEY, content TEXT)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT content FROM " + table + " WHERE memory_id = ?")) {
            ps.setString(1, String.valueOf(memoryId));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new ArrayList<>(ChatMessageDeserializer.messagesFromJson(rs.getString(1)))
                        : new ArrayList<>();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (memory_id, content) VALUES (?, ?)"
                     + " ON CONFLICT (memory_id) DO UPDATE SET content = EXCLUDED.content")) {
            ps.setString(1, String.valueOf(memoryId));
            ps.setString(2, ChatMessageSerializer.messagesToJson(messages));
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void deleteMessages(Object memoryId) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE memory_id = ?")) {
            ps.setString(1, String.valueOf(memoryId));
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
