package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Optional;

/**
 * Everything that decides one node's pool, read from the informers' caches at one moment: what its
 * plugin reported, whether the Node exists (and its UID, the slices' owner, and offering label),
 * whether the plugin's Lease is alive, and Tessera's slices of the pool as cached (their metadata
 * only, with the resourceVersion an update is made against).
 *
 * @param offeringLabel the node's {@code gpu.tessera.dev/offering} label; null when unset
 */
record NodeInputs(
    String node,
    Optional<ReportedNodes.Reported> report,
    boolean nodeExists,
    String nodeUid,
    String offeringLabel,
    boolean pluginAlive,
    List<ResourceSlice> slices) {

  /** Whether the pool should hold anything: a report, a Node and a live plugin. */
  boolean publishable() {
    return report.isPresent() && nodeExists && pluginAlive;
  }
}
