package io.github.memorypack.benchmarks.jdbc;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * The sockets the PostgreSQL driver opens in a benchmark (its {@code socketFactory} connection
 * property names this class): plain sockets that count every byte sent to and received from the
 * server, so a benchmark reports what a turn costs on the wire, protocol framing included.
 */
public final class CountingSocketFactory extends SocketFactory {

    static final AtomicLong SENT = new AtomicLong();
    static final AtomicLong RECEIVED = new AtomicLong();

    /** The driver instantiates the factory by reflection. */
    public CountingSocketFactory() {
    }

    /** {bytes sent to the server, bytes received from it} since the JVM started. */
    static long[] totals() {
        return new long[] {SENT.get(), RECEIVED.get()};
    }

    @Override
    public Socket createSocket() {
        return new CountingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new java.net.InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return createSocket(host, port);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return createSocket(host.getHostAddress(), port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return createSocket(address, port);
    }

    private static final class CountingSocket extends Socket {
        private InputStream countingIn;
        private OutputStream countingOut;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (countingIn == null) {
                countingIn = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        int b = super.read();
                        if (b >= 0) {
                            RECEIVED.incrementAndGet();
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] buffer, int offset, int length) throws IOException {
                        int n = super.read(buffer, offset, length);
                        if (n > 0) {
                            RECEIVED.addAndGet(n);
                        }
                        return n;
                    }
                };
            }
            return countingIn;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (countingOut == null) {
                // writes go straight to the socket's stream (FilterOutputStream's field "out"), counted
                countingOut = new FilterOutputStream(super.getOutputStream()) {
                    @Override
                    public void write(int b) throws IOException {
                        out.write(b);
                        SENT.incrementAndGet();
                    }

                    @Override
                    public void write(byte[] buffer, int offset, int length) throws IOException {
                        out.write(buffer, offset, length);
                        SENT.addAndGet(length);
                    }
                };
            }
            return countingOut;
        }
    }
}
