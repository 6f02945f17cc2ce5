package dev.tessera.controller.calls;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API calls under way on the controller's own threads (a worker's reads and writes of one
 * node's slices, the writer of the GpuNodes' {@code status.offering}, the Events' writer), and the
 * one decision about them: calls that have run past the call timeout are interrupted. fabric8's JDK
 * client times a request out only until its answer's headers come, so an answer that stalls after
 * them (a proxy or API server that stops mid-answer, an HTTP/1.1 connection gone half-open) held
 * its thread for good: a worker and its node, every GpuNode's status, or every Event after it.
 * Interrupted, fabric8's wait for the answer fails, and the calls fail as refused ones do: the node
 * goes back to the queue's backoff, the Event is dropped as one the API server refused.
 *
 * <p>The interrupt is cleared once the calls return: a thread's own stop is told by its owner's
 * flag (set before the owner interrupts it), never by the interrupt alone. The interrupt ends the
 * caller's wait, not the request (fabric8 keeps it from its caller): the answers the calls' client
 * has tied to them through {@link CallAnswers} are cancelled too, and their connections or streams
 * closed.
 */
public final class CallDeadlines {
  private static final Logger LOG = LoggerFactory.getLogger(CallDeadlines.class);

  /**
   * Calls under way: which, for which node, since when, and the answers that have begun to come.
   */
  record UnderWay(String call, String node, Instant since, OpenAnswers answers) {
    /** Whether they have run longer than {@code bound} at {@code now}. */
    boolean overdue(Instant now, Duration bound) {
      return now.isAfter(since.plus(bound));
    }
  }

  private final Duration bound;
  private final Clock clock;
  private final MeterRegistry metrics;
  private final Map<Thread, UnderWay> underWay = new HashMap<>();
  private final Set<Thread> interrupted = new HashSet<>();

  public CallDeadlines(Duration bound, Clock clock, MeterRegistry metrics) {
    this.bound = bound;
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * Makes {@code calls} on this thread, interrupted by {@link #interruptOverdue} once they have run
   * past the bound, which their API call then throws on.
   */
  public void run(String call, String node, Runnable calls) {
    call(
        call,
        node,
        () -> {
          calls.run();
          return null;
        });
  }

  /** As {@link #run}, for calls that answer something. */
  public <T> T call(String call, String node, Supplier<T> calls) {
    Thread self = Thread.currentThread();
    synchronized (this) {
      underWay.put(self, new UnderWay(call, node, clock.instant(), new OpenAnswers()));
    }
    try {
      return calls.get();
    } finally {
      synchronized (this) {
        underWay.remove(self);
        if (interrupted.remove(self)) {
          Thread.interrupted(); // ours, for these calls only
        }
      }
    }
  }

  /**
   * Interrupts the calls that have run past the bound, each once (the controller calls it each
   * second); the interrupt is made under the lock the calls' end takes, so it never lands after
   * them.
   */
  public void interruptOverdue() {
    Instant now = clock.instant();
    List<UnderWay> givenUp = new ArrayList<>();
    synchronized (this) {
      underWay.forEach(
          (thread, calls) -> {
            if (calls.overdue(now, bound) && interrupted.add(thread)) {
              givenUp.add(calls);
              thread.interrupt();
            }
          });
    }
    for (UnderWay calls : givenUp) {
      int cancelled = calls.answers().cancel();
      Counter.builder("tessera.controller.calls.abandoned")
          .description("API calls given up after the call timeout (their answer stalled)")
          .tag("call", calls.call())
          .register(metrics)
          .increment();
      LOG.atWarn()
          .addKeyValue("node", calls.node())
          .addKeyValue("call", calls.call())
          .addKeyValue("sinceMs", Duration.between(calls.since(), now).toMillis())
          .addKeyValue("callTimeout", bound)
          .addKeyValue("answersCancelled", cancelled)
          .log(
              "an API call has not ended within the call timeout (its answer stalled); giving it"
                  + " up (TESSERA_CONTROLLER_CALL_TIMEOUT)");
    }
  }

  /** The answers of the calls under way on this thread, or null when it makes none now. */
  synchronized OpenAnswers answersOfThisThread() {
    UnderWay calls = underWay.get(Thread.currentThread());
    return calls == null ? null : calls.answers();
  }

  /** Calls under way now. */
  synchronized int underWay() {
    return underWay.size();
  }
}
