package dev.tessera.controller.publish;

import java.time.Duration;
import java.time.Instant;

/**
 * One of the caches' lists, not yet ended: what it lists and since when.
 *
 * @param resource what it lists ({@code gpunodes}, {@code nodes}, ...), as the start log names it
 * @param since when it was asked for
 */
record ListUnderWay(String resource, Instant since) {

  /**
   * Whether it has taken longer than {@code bound} by {@code now}: a list that long is taken as one
   * that will never end (an answer that stalls), not a slow one.
   */
  boolean overdue(Instant now, Duration bound) {
    return Duration.between(since, now).compareTo(bound) > 0;
  }
}
