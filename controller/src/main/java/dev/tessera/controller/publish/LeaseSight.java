package dev.tessera.controller.publish;

import java.time.Clock;
import java.time.Instant;

/**
 * Since when the controller has seen the plugins' Leases without a break: from the moment its Lease
 * informer last started or came back after its watch broke (an API server outage, a network
 * partition). {@link LeaseLiveness} counts a Lease's expiry from no earlier than this.
 */
final class LeaseSight {
  /** What one observation changed: an operator is told when sight is lost and when it is back. */
  enum Change {
    NONE,
    LOST,
    REGAINED
  }

  private final Clock clock;
  private volatile Instant since;

  /** As last observed; sight starts as had (the informer's start is its beginning). */
  private boolean watching = true;

  LeaseSight(Clock clock) {
    this.clock = clock;
    this.since = clock.instant();
  }

  /** The informer has (re)started: nothing before now was seen. */
  void restarted() {
    since = clock.instant();
  }

  /**
   * Takes what the informer says now: while it is not watching, sight keeps starting now, so a
   * watch that comes back after a gap counts from the end of the gap (to the observer's period).
   * Synchronized: the periodic check and the reconciles' workers observe at once, and one change is
   * to be reported once.
   */
  synchronized Change observe(boolean watching) {
    if (!watching) {
      since = clock.instant();
    }
    if (watching == this.watching) {
      return Change.NONE;
    }
    this.watching = watching;
    return watching ? Change.REGAINED : Change.LOST;
  }

  Instant since() {
    return since;
  }
}
