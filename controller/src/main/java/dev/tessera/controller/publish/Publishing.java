package dev.tessera.controller.publish;

/**
 * What a replica does with the lead ({@link LeaderElection}): {@link NodePoolController} in the
 * controller.
 */
public interface Publishing {
  /** Fills the caches while this replica waits to lead; returns at once. */
  void watch();

  /**
   * Publishes until {@link #stop}, then returns; throws once it cannot go on (its caches no longer
   * follow the cluster). Waits first until the caches have filled, so it may take long to begin.
   */
  void start();

  /** Stops writing and watching; a replica that stopped does not start. */
  void stop();
}
