package dev.tessera.controller.publish;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the GpuNodes' {@code status.offering} behind the slices, on a thread of its own: the
 * scheduler needs the slices, a person reads the offering. Each write replaces a GpuNode whose
 * status holds the node's whole inventory, which costs the API server several times a slice's
 * create; written by the workers between slices, at a fleet's first publish these writes held the
 * slices back (docs/benchmarks.md). So a write waits while nodes wait for their slices, but never
 * longer than {@code patience}; the latest offering wished for a node is the one written. A write
 * that fails is logged and dropped: the node's next reconcile (a resync at the latest) wishes it
 * again, since its GpuNode still says another offering.
 */
final class OfferingStatusWrites implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OfferingStatusWrites.class);

  /** How often a waiting write looks again at the slice work waiting. */
  private static final long RECHECK_MILLIS = 50;

  private record Wish(String offering, Instant since) {}

  private final BiConsumer<String, String> write;
  private final IntSupplier slicesWaiting;
  private final Clock clock;
  private final Duration patience;
  private final Map<String, Wish> wishes = new LinkedHashMap<>();
  private final Thread thread;

  /**
   * Set before the thread is interrupted: a write given up past its deadline is interrupted too.
   */
  private volatile boolean closed;

  /**
   * @param write writes one node's offering (the API call)
   * @param slicesWaiting how many nodes wait for a worker to write their slices
   */
  OfferingStatusWrites(
      BiConsumer<String, String> write, IntSupplier slicesWaiting, Clock clock, Duration patience) {
    this.write = write;
    this.slicesWaiting = slicesWaiting;
    this.clock = clock;
    this.patience = patience;
    this.thread = Thread.ofPlatform().name("gpunode-offering").daemon().unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  /** The node's GpuNode should say {@code offering}; a wish not yet written is replaced. */
  synchronized void wish(String node, String offering) {
    Wish before = wishes.get(node);
    wishes.put(node, new Wish(offering, before == null ? clock.instant() : before.since()));
    notifyAll();
  }

  /** Wishes not yet written (for a gauge). */
  synchronized int pending() {
    return wishes.size();
  }

  private void run() {
    try {
      while (!closed && !Thread.currentThread().isInterrupted()) {
        Map.Entry<String, Wish> next = next();
        try {
          write.accept(next.getKey(), next.getValue().offering());
        } catch (RuntimeException e) {
          LOG.atWarn()
              .addKeyValue("node", next.getKey())
              .addKeyValue("offering", next.getValue().offering())
              .setCause(e)
              .log("cannot write the GpuNode's status.offering; the next reconcile tries again");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for the oldest wish that is due: no slice work waits, or it has waited long enough. */
  private synchronized Map.Entry<String, Wish> next() throws InterruptedException {
    while (true) {
      if (wishes.isEmpty()) {
        wait();
        continue;
      }
      var oldest = wishes.entrySet().iterator().next();
      boolean patient = oldest.getValue().since().plus(patience).isAfter(clock.instant());
      if (slicesWaiting.getAsInt() > 0 && patient) {
        wait(RECHECK_MILLIS);
        continue;
      }
      wishes.remove(oldest.getKey());
      return Map.entry(oldest.getKey(), oldest.getValue());
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
