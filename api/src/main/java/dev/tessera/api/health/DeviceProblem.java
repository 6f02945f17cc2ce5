package dev.tessera.api.health;

import java.time.Instant;
import java.util.Objects;

/**
 * Something wrong with a device that the node plugin saw, in the shape of the device taint the
 * controller publishes for it.
 *
 * @param key the taint key, one of {@link HealthTaintKeys}
 * @param value the taint value (a label value, e.g. the XID number), empty when there is none
 * @param effect {@link TaintEffect#NO_SCHEDULE} when the device must not get new claims
 * @param message what happened, for people
 * @param since when it was first seen
 * @param lastSeen when it was last seen (recovery counts from here)
 */
public record DeviceProblem(
    String key, String value, TaintEffect effect, String message, Instant since, Instant lastSeen) {
  public DeviceProblem {
    Objects.requireNonNull(key, "key");
    value = value == null ? "" : value;
    Objects.requireNonNull(effect, "effect");
    message = message == null ? "" : message;
    Objects.requireNonNull(since, "since");
    lastSeen = lastSeen == null ? since : lastSeen;
  }

  /** Whether this problem makes its device unhealthy (informational ones do not). */
  public boolean makesUnhealthy() {
    return effect == TaintEffect.NO_SCHEDULE;
  }
}
