package dev.tessera.controller.publish;

import java.time.Duration;

/**
 * What leader election needs of the controller's settings.
 *
 * @param namespace where the replicas' Lease is
 * @param leaseDuration how long a leader holds the Lease without renewing it
 * @param identity this replica's name in the Lease
 */
public record ElectionSettings(String namespace, Duration leaseDuration, String identity) {}
