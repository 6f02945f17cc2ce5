package dev.tessera.controller.publish;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.Map;

/**
 * Writes the controller's one field of a GpuNode's status, {@code status.offering} (what it
 * publishes for the node, so {@code kubectl get gpunodes} shows it), as a merge patch naming only
 * that field: the plugin's fields stay as the plugin wrote them (docs/decisions.md).
 */
final class GpuNodeStatusWriter {

  private final KubernetesClient client;

  GpuNodeStatusWriter(KubernetesClient client) {
    this.client = client;
  }

  /** Writes the offering; a GpuNode deleted meanwhile is left alone (its node is going). */
  void writeOffering(String node, String offering) {
    try {
      client
          .genericKubernetesResources(PoolInformers.GPU_NODES)
          .withName(node)
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              client
                  .getKubernetesSerialization()
                  .asJson(Map.of("status", Map.of("offering", offering))));
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
        throw e;
      }
    }
  }
}
