package dev.tessera.plugin.k8s;

import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PreparedDevice;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes claims' {@code status.devices} off the kubelet's path: the kubelet waits for prepare, not
 * for this informative status. Work is keyed by claim and held for a short delay, so only the
 * latest wish for a claim is written (a claim prepared and unprepared within the delay costs no
 * write of its devices), and claims are written in the order they were first touched.
 */
public final class StatusReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusReporter.class);

  private final BiConsumer<ClaimRef, List<PreparedDevice>> writePrepared;
  private final Consumer<ClaimRef> writeCleared;
  private final long delayNanos;
  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private final Thread worker;
  private boolean busy;
  private boolean closed;

  /** A wish and when the claim was first touched since its last write. */
  private record Pending(Runnable write, long since) {}

  /**
   * @param writePrepared records prepared devices in a claim's status (blocking)
   * @param writeCleared removes our devices from a claim's status (blocking)
   * @param delay how long a wish waits for a later one to replace it
   */
  public StatusReporter(
      BiConsumer<ClaimRef, List<PreparedDevice>> writePrepared,
      Consumer<ClaimRef> writeCleared,
      Duration delay) {
    this.writePrepared = writePrepared;
    this.writeCleared = writeCleared;
    this.delayNanos = delay.toNanos();
    this.worker = Thread.ofPlatform().daemon().name("claim-status").start(this::run);
  }

  public void prepared(ClaimRef claim, List<PreparedDevice> devices) {
    submit(claim, () -> writePrepared.accept(claim, devices));
  }

  public void cleared(ClaimRef claim) {
    submit(claim, () -> writeCleared.accept(claim));
  }

  private synchronized void submit(ClaimRef claim, Runnable write) {
    if (closed) {
      return;
    }
    Pending earlier = pending.get(claim.uid());
    long since = earlier == null ? System.nanoTime() : earlier.since();
    pending.put(claim.uid(), new Pending(write, since));
    notifyAll();
  }

  /** Waits until every status asked for so far is written (for tests and shutdown). */
  public synchronized boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!pending.isEmpty() || busy) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  private void run() {
    while (true) {
      Runnable next;
      try {
        next = take();
      } catch (InterruptedException e) {
        return;
      }
      if (next == null) {
        return;
      }
      try {
        next.run();
      } catch (RuntimeException e) {
        LOG.atWarn().setCause(e).log("cannot write a claim's status");
      }
    }
  }

  /** The oldest wish once its delay is over (at once when closing); null when closed and done. */
  private synchronized Runnable take() throws InterruptedException {
    busy = false;
    notifyAll();
    while (true) {
      if (pending.isEmpty()) {
        if (closed) {
          return null;
        }
        wait();
        continue;
      }
      Iterator<Pending> oldest = pending.values().iterator();
      Pending first = oldest.next();
      long due = first.since() + delayNanos - System.nanoTime();
      if (due <= 0 || closed) {
        oldest.remove();
        busy = true;
        return first.write();
      }
      wait(Math.max(1, due / 1_000_000));
    }
  }

  /** Writes what is pending without further delay (up to a few seconds), then stops. */
  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    worker.join(Duration.ofSeconds(5));
  }
}
