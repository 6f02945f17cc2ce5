package dev.tessera.controller.publish;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The nodes whose pools need reconciling, each at most once however many events name it, handed to
 * workers one node at a time. A node that failed waits out its {@link Backoff} before it is handed
 * out again, and events for it meanwhile join that one retry instead of adding runs: a write the
 * API server keeps refusing costs one attempt per backoff step, never one per event (every slice
 * event of a failing node used to enqueue it again, so retries multiplied). A success forgets the
 * node's failures.
 *
 * <p>A node named while a worker has it is run once more after the worker is done (its inputs
 * changed under the run), never by two workers at once.
 */
public final class NodeQueue {
  private final Backoff backoff;
  private final Clock clock;
  private final ArrayDeque<String> ready = new ArrayDeque<>();
  private final Set<String> queued = new HashSet<>();
  private final Set<String> inFlight = new HashSet<>();
  private final Set<String> dirty = new HashSet<>();
  private final Map<String, Instant> waiting = new HashMap<>();
  private final Map<String, Integer> failures = new HashMap<>();

  public NodeQueue(Backoff backoff, Clock clock) {
    this.backoff = backoff;
    this.clock = clock;
  }

  /** Something about the node changed (or a resync): reconcile it once, soon. */
  public synchronized void add(String node) {
    if (inFlight.contains(node)) {
      dirty.add(node);
    } else if (!waiting.containsKey(node) && queued.add(node)) {
      ready.addLast(node);
      // One node, one worker: waking every worker for it had them all contend for this monitor.
      notify();
    }
  }

  /** The next node due, if any; the caller owns it until {@link #done}. */
  public synchronized Optional<String> poll() {
    promoteDue();
    String node = ready.pollFirst();
    if (node == null) {
      return Optional.empty();
    }
    queued.remove(node);
    inFlight.add(node);
    if (!ready.isEmpty()) {
      notify(); // more are ready (promoted from their backoff here): wake the next worker for them
    }
    return Optional.of(node);
  }

  /** Waits for the next node due (a worker's loop). */
  public synchronized String take() throws InterruptedException {
    while (true) {
      Optional<String> node = poll();
      if (node.isPresent()) {
        return node.get();
      }
      Optional<Instant> due = nextDue();
      if (due.isEmpty()) {
        wait();
      } else {
        wait(Math.max(1, due.get().toEpochMilli() - clock.millis()));
      }
    }
  }

  /**
   * The worker is done with the node. A success forgets its failures; a failure puts it to wait for
   * its next backoff step, and returns how long that is.
   */
  public synchronized Duration done(String node, boolean succeeded) {
    inFlight.remove(node);
    boolean changed = dirty.remove(node);
    if (succeeded) {
      failures.remove(node);
      if (changed) {
        add(node);
      }
      return Duration.ZERO;
    }
    // The retry reads the inputs as they are then: a change seen during the run needs no run of
    // its own.
    int failed = failures.merge(node, 1, Integer::sum);
    Duration wait = backoff.after(failed);
    waiting.put(node, clock.instant().plus(wait));
    notifyAll();
    return wait;
  }

  /** Nodes ready to be handed out now (the queue depth). */
  public synchronized int depth() {
    promoteDue();
    return ready.size();
  }

  /** Nodes waiting out a backoff. */
  public synchronized int backingOff() {
    promoteDue();
    return waiting.size();
  }

  /** When the next waiting node is due. */
  public synchronized Optional<Instant> nextDue() {
    return waiting.values().stream().min(Instant::compareTo);
  }

  private void promoteDue() {
    if (waiting.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    var due = waiting.entrySet().stream().filter(e -> !e.getValue().isAfter(now)).toList();
    for (var entry : due) {
      waiting.remove(entry.getKey());
      if (queued.add(entry.getKey())) {
        ready.addLast(entry.getKey());
      }
    }
  }
}
