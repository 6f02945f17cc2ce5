package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.time.Instant;

/** Whether a node plugin is alive, by its Lease (pure). */
public final class LeaseLiveness {
  private LeaseLiveness() {}

  /**
   * Alive while the last renewal plus the Lease's duration plus a grace period is in the future.
   */
  public static boolean alive(Lease lease, Instant now, Duration grace) {
    if (lease == null || lease.getSpec() == null || lease.getSpec().getRenewTime() == null) {
      return false;
    }
    Integer seconds = lease.getSpec().getLeaseDurationSeconds();
    Instant expiry =
        lease
            .getSpec()
            .getRenewTime()
            .toInstant()
            .plusSeconds(seconds == null ? 0 : seconds)
            .plus(grace);
    return now.isBefore(expiry);
  }
}
