package io.github.memorypack.summarybuffer;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;

/** Test executor that queues tasks until the test runs them: background work made deterministic. */
public final class ManualExecutor implements Executor {

    private final Deque<Runnable> queue = new ArrayDeque<>();

    @Override
    public synchronized void execute(Runnable command) {
        queue.addLast(command);
    }

    public synchronized int pending() {
        return queue.size();
    }

    public void runAll() {
        while (true) {
            Runnable next;
            synchronized (this) {
                next = queue.pollFirst();
            }
            if (next == null) {
                return;
            }
            next.run();
        }
    }
}
