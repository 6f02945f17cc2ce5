package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.time.Instant;

/** Whether a node plugin is alive, by its Lease (pure). */
public final class LeaseLiveness {
  private LeaseLiveness() {}

  /**
   * Alive while the Lease's duration plus a grace period, counted from its last renewal or from
   * when the controller last gained sight of the Leases, whichever is later, is still running.
   *
   * <p>Why "or from sight": a plugin renews through the API server, so while the API server is away
   * no plugin can renew, and while the controller's watch is broken (or before it has started) it
   * cannot see renewals. Counting only from the renewal would make an API server outage longer than
   * a Lease look like every plugin of the cluster dying at once, and the controller would withdraw
   * every node's slices the moment it is back, just before the renewals arrive. Counting from sight
   * gives each plugin one full Lease period to renew after any blind spot — what the node lifecycle
   * controller does for Node Leases. The cost: a plugin that really died during the blind spot
   * keeps its slices one period longer.
   *
   * @param sightSince since when the controller has watched the Leases without a break
   */
  public static boolean alive(Lease lease, Instant now, Duration grace, Instant sightSince) {
    if (lease == null || lease.getSpec() == null || lease.getSpec().getRenewTime() == null) {
      return false;
    }
    Integer seconds = lease.getSpec().getLeaseDurationSeconds();
    Instant renewed = lease.getSpec().getRenewTime().toInstant();
    Instant from = renewed.isAfter(sightSince) ? renewed : sightSince;
    Instant expiry = from.plusSeconds(seconds == null ? 0 : seconds).plus(grace);
    return now.isBefore(expiry);
  }
}
