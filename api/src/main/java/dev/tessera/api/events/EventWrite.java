package dev.tessera.api.events;

/** What correlation decided to write for one occurrence. */
public sealed interface EventWrite {
  EventData event();

  /** A new Event (or one seen so long ago that its object may have expired). */
  record Create(EventData event) implements EventWrite {}

  /**
   * A repeat: the existing Event's {@code count}, {@code lastTimestamp} (and message) are patched,
   * as client-go's EventCorrelator does.
   */
  record Increment(EventData event) implements EventWrite {}
}
