package dev.tessera.controller.publish;

import java.time.Duration;

/**
 * How long a node waits before its pool is reconciled again after {@code failures} failed attempts
 * in a row (pure): {@code initial} doubling per failure, capped at {@code max}.
 */
public record Backoff(Duration initial, Duration max) {

  /** The default: 200 ms, doubling to 5 minutes. */
  public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(200), Duration.ofMinutes(5));

  public Backoff {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "backoff needs 0 < initial <= max, not " + initial + " and " + max);
    }
  }

  /** The wait after the {@code failures}th failure in a row (1 for the first). */
  public Duration after(int failures) {
    if (failures < 1) {
      return Duration.ZERO;
    }
    // Doubling past 2^30 would overflow long before any cap a person sets is reached.
    Duration wait = initial.multipliedBy(1L << Math.min(failures - 1, 30));
    return wait.compareTo(max) > 0 ? max : wait;
  }
}
