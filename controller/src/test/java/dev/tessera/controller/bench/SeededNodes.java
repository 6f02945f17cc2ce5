package dev.tessera.controller.bench;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.ZonedDateTime;
import java.util.Map;

/**
 * A node as the controller meets it, written for its benchmarks, its image's training run and the
 * end-to-end tests that need a fleet without node plugins: the Node labelled with its offering, its
 * GpuNode (owned by the Node) reporting an inventory in the plugin's status form, and its plugin's
 * Lease, held for an hour so that the controller takes the plugin for alive throughout a run.
 */
public final class SeededNodes {
  private SeededNodes() {}

  /**
   * Creates the node, its GpuNode and its plugin Lease in {@code leaseNamespace}, held by {@code
   * holder}; returns the Node's UID. {@code inventory} is the GpuNode's {@code status.inventory} as
   * the plugin writes it ({@code InventoryStatus}).
   */
  public static String seed(
      KubernetesClient client,
      String name,
      Offering offering,
      int gpuCount,
      Map<String, Object> inventory,
      String leaseNamespace,
      String holder) {
    String uid =
        client
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .addToLabels(Offering.NODE_LABEL, offering.label())
                    .endMetadata()
                    .build())
            .create()
            .getMetadata()
            .getUid();
    var gpuNodes = client.genericKubernetesResources(GpuNodeReporter.GPU_NODES);
    var gpuNode =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(GpuNodeNames.API_VERSION)
            .withKind(GpuNodeNames.KIND)
            .withNewMetadata()
            .withName(name)
            .addNewOwnerReference()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(name)
            .withUid(uid)
            .endOwnerReference()
            .endMetadata()
            .build();
    gpuNode.setAdditionalProperty("spec", Map.of("nodeName", name));
    // An API server keeps no status given on create (the status subresource): written after it.
    var stored = gpuNodes.resource(gpuNode).create();
    stored.setAdditionalProperty("status", Map.of("gpuCount", gpuCount, "inventory", inventory));
    gpuNodes.resource(stored).updateStatus();
    client
        .leases()
        .inNamespace(leaseNamespace)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("tessera-" + name)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(3600)
                .withRenewTime(ZonedDateTime.now())
                .endSpec()
                .build())
        .create();
    return uid;
  }
}
