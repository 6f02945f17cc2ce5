package dev.tessera.api.events;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records Events off the caller's path: {@link #record} only offers the occurrence to a bounded
 * queue and returns (a full queue drops it), and one thread of its own correlates and writes them.
 * Events are informative: a write that fails is handed to the sink to log and is dropped, never
 * retried into a backlog, and never reaches the caller (a prepare never fails for an Event).
 */
public final class EventRecorder implements AutoCloseable {
  /** Why an occurrence was not written (the label of the dropped-events metric). */
  public enum Dropped {
    RATE_LIMITED,
    QUEUE_FULL,
    WRITE_FAILED
  }

  /** The longest {@link #close} writes what is queued before it stops the writer. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private static final Occurrence STOP =
      new Occurrence(new InvolvedObject("-", "-", "", "-", ""), EventType.NORMAL, "-", "");

  private final EventCorrelator correlator;
  private final EventSink sink;
  private final Clock clock;
  private final BlockingQueue<Occurrence> queue;
  private final AtomicLong[] dropped = new AtomicLong[Dropped.values().length];
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong pending = new AtomicLong();
  private final Thread worker;
  private volatile boolean closed;

  /**
   * @param capacity how many occurrences may wait for the writer; more are dropped
   */
  public EventRecorder(
      EventSource source, EventPolicy policy, EventSink sink, Clock clock, int capacity) {
    this.correlator = new EventCorrelator(source, policy);
    this.sink = sink;
    this.clock = clock;
    this.queue = new ArrayBlockingQueue<>(capacity);
    for (int i = 0; i < dropped.length; i++) {
      dropped[i] = new AtomicLong();
    }
    this.worker = Thread.ofPlatform().daemon().name("tessera-events").start(this::run);
  }

  /** Asks for an Event; never blocks, never throws. */
  public void record(Occurrence occurrence) {
    pending.incrementAndGet();
    if (closed || !queue.offer(occurrence)) {
      dropped[Dropped.QUEUE_FULL.ordinal()].incrementAndGet();
      done();
    }
  }

  /** How many occurrences were dropped for this reason since start. */
  public long dropped(Dropped reason) {
    return dropped[reason.ordinal()].get();
  }

  /** How many Event writes (creates and increments) the API server took. */
  public long written() {
    return written.get();
  }

  /** Waits until everything asked for so far is written or dropped (tests and shutdown). */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (pending) {
      while (pending.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        pending.wait(Math.max(1, left / 1_000_000));
      }
    }
    return true;
  }

  private void done() {
    if (pending.decrementAndGet() == 0) {
      synchronized (pending) {
        pending.notifyAll();
      }
    }
  }

  private void run() {
    while (true) {
      Occurrence next;
      try {
        next = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (next == STOP) {
        return;
      }
      try {
        var write = correlator.decide(next, clock.instant());
        if (write.isEmpty()) {
          dropped[Dropped.RATE_LIMITED.ordinal()].incrementAndGet();
          continue;
        }
        try {
          sink.write(write.get());
          written.incrementAndGet();
        } catch (RuntimeException e) {
          dropped[Dropped.WRITE_FAILED.ordinal()].incrementAndGet();
          sink.failed(write.get(), e);
        }
      } finally {
        done();
      }
    }
  }

  /** Writes what is queued for up to {@link #CLOSE_WAIT}, then stops. */
  @Override
  public void close() throws InterruptedException {
    close(CLOSE_WAIT);
  }

  /**
   * Writes what is queued for up to {@code within}, then stops the writer. Bounded as a whole: a
   * write that never ends (an answer that stalls) with the queue full would otherwise keep the stop
   * from ever being queued, and the process's shutdown waiting on it.
   */
  public void close(Duration within) throws InterruptedException {
    closed = true;
    long deadline = System.nanoTime() + within.toNanos();
    while (!queue.offer(STOP, 100, TimeUnit.MILLISECONDS)) {
      if (!worker.isAlive() || System.nanoTime() - deadline > 0) {
        worker.interrupt();
        return;
      }
    }
    worker.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
    worker.interrupt();
  }
}
