package dev.tessera.controller.publish;

import java.time.Duration;

/**
 * What publishing needs of the controller's settings (see {@code ControllerConfig} for each).
 *
 * @param driverName the DRA driver name the node plugins run under
 * @param defaultOffering the offering of nodes without the offering label
 * @param leaseNamespace where the node plugins renew their Leases
 * @param leaseGrace how long past a Lease's expiry a node keeps its slices
 * @param resync how often every node is reconciled even without events
 * @param retryInitial the first wait of a node whose reconcile failed
 * @param retryMax the longest wait between retries of a failing node
 * @param workers how many nodes are reconciled at once (each node by one worker at a time)
 * @param listTimeout the longest one of the caches' first lists may take before a replica that
 *     leads gives up publishing (and with it the lead)
 * @param callTimeout the longest a node's slice reads or writes, or a GpuNode's status write, may
 *     take before they are given up ({@link CallDeadlines})
 */
public record PublishSettings(
    String driverName,
    String defaultOffering,
    String leaseNamespace,
    Duration leaseGrace,
    Duration resync,
    Duration retryInitial,
    Duration retryMax,
    int workers,
    Duration listTimeout,
    Duration callTimeout) {

  public PublishSettings {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, not " + workers);
    }
    if (!listTimeout.isPositive()) {
      throw new IllegalArgumentException("listTimeout must be positive, not " + listTimeout);
    }
    if (!callTimeout.isPositive()) {
      throw new IllegalArgumentException("callTimeout must be positive, not " + callTimeout);
    }
  }
}
