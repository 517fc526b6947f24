package io.github.memorypack.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A Lua script run by its SHA-1 ({@code EVALSHA}); when the server does not have it cached (after a
 * restart, a failover or {@code SCRIPT FLUSH}) it is sent once in full with {@code EVAL}, which also
 * caches it. A script runs atomically on the server, so a script is the unit of "all or nothing".
 * Keys, arguments and replies are bytes: the store checksums the exact bytes it stored.
 */
final class LuaScript {

    private final byte[] source;
    private final byte[] sha;

    LuaScript(String source) {
        this.source = source.getBytes(StandardCharsets.UTF_8);
        this.sha = sha1Hex(this.source).getBytes(StandardCharsets.US_ASCII);
    }

    /** Runs through the client (which routes by key on a cluster and follows redirects). */
    Object run(UnifiedJedis jedis, List<byte[]> keys, List<byte[]> args) {
        try {
            return jedis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return jedis.eval(source, keys, args);
        }
    }

    /** Runs on one connection, so that a {@code WAIT} sent after it on the same connection covers it. */
    Object run(Connection connection, List<byte[]> keys, List<byte[]> args) {
        try {
            return connection.executeCommand(command(Protocol.Command.EVALSHA, sha, keys, args));
        } catch (JedisNoScriptException e) {
            return connection.executeCommand(command(Protocol.Command.EVAL, source, keys, args));
        }
    }

    private static CommandArguments command(Protocol.Command command, byte[] script, List<byte[]> keys,
                                            List<byte[]> args) {
        CommandArguments arguments = new CommandArguments(command).add(script).add(keys.size());
        for (byte[] key : keys) {
            arguments.add(key);
        }
        for (byte[] arg : args) {
            arguments.add(arg);
        }
        return arguments;
    }

    private static String sha1Hex(byte[] bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(bytes);
            StringBuilder hex = new StringBuilder(40);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", e);
        }
    }
}
