package dev.tessera.controller.publish;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API writes under way on the controller's own threads (a worker's slice writes for one node,
 * the writer of the GpuNodes' {@code status.offering}), and the one decision about them: a write
 * that has run past the write timeout is interrupted. fabric8's JDK client times a request out only
 * until its answer's headers come, so an answer that stalls after them (a proxy or API server that
 * stops mid-answer, an HTTP/1.1 connection gone half-open) held its thread for good, and with it a
 * worker and its node, or every GpuNode's status. Interrupted, fabric8's wait for the answer fails,
 * and the write fails as a refused one does: the node goes back to the queue's backoff.
 *
 * <p>The interrupt is cleared once the write returns: a thread's own stop is told by its owner's
 * flag (set before the owner interrupts it), never by the interrupt alone. The stalled request
 * itself is not cancelled (fabric8 keeps it from its caller): it stays open until its connection
 * closes.
 */
final class WriteDeadlines {
  private static final Logger LOG = LoggerFactory.getLogger(WriteDeadlines.class);

  /** One write under way: what it writes, for which node, on which thread, since when. */
  record UnderWay(String write, String node, Thread thread, Instant since) {
    /** Whether it has run longer than {@code bound} at {@code now}. */
    boolean overdue(Instant now, Duration bound) {
      return now.isAfter(since.plus(bound));
    }
  }

  private final Duration bound;
  private final Clock clock;
  private final MeterRegistry metrics;
  private final Map<Thread, UnderWay> underWay = new HashMap<>();
  private final Set<Thread> interrupted = new HashSet<>();

  WriteDeadlines(Duration bound, Clock clock, MeterRegistry metrics) {
    this.bound = bound;
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * Makes {@code write} (the API calls) on this thread, interrupted by {@link #interruptOverdue}
   * once it has run past the bound, which its API call then throws on.
   */
  void run(String write, String node, Runnable calls) {
    Thread self = Thread.currentThread();
    synchronized (this) {
      underWay.put(self, new UnderWay(write, node, self, clock.instant()));
    }
    try {
      calls.run();
    } finally {
      synchronized (this) {
        underWay.remove(self);
        if (interrupted.remove(self)) {
          Thread.interrupted(); // ours, for this write only
        }
      }
    }
  }

  /**
   * Interrupts each write that has run past the bound, once (the controller calls it each second).
   */
  synchronized void interruptOverdue() {
    Instant now = clock.instant();
    for (UnderWay write : underWay.values()) {
      if (write.overdue(now, bound) && interrupted.add(write.thread())) {
        Counter.builder("tessera.controller.writes.abandoned")
            .description("API writes given up after the write timeout (their answer stalled)")
            .tag("write", write.write())
            .register(metrics)
            .increment();
        LOG.atWarn()
            .addKeyValue("node", write.node())
            .addKeyValue("write", write.write())
            .addKeyValue("sinceMs", Duration.between(write.since(), now).toMillis())
            .addKeyValue("writeTimeout", bound)
            .log(
                "a write has not ended within the write timeout (its answer stalled); giving it"
                    + " up (TESSERA_CONTROLLER_WRITE_TIMEOUT)");
        write.thread().interrupt();
      }
    }
  }

  /** Writes under way now (for a test or a gauge). */
  synchronized int underWay() {
    return underWay.size();
  }
}
