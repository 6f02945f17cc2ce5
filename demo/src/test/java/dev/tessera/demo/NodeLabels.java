package dev.tessera.demo;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Collections;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * A node's label set or removed as {@code kubectl label --overwrite} does: a merge patch of that
 * label alone. fabric8's {@code edit} sends the node's resourceVersion with its patch, and on kind
 * the kubelet's own writes of the node (status, heartbeats) made it fail with a conflict.
 */
final class NodeLabels {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private NodeLabels() {}

  /** Sets {@code key} to {@code value} on the node; a null value removes the label. */
  static void set(KubernetesClient client, String node, String key, String value) {
    Map<String, Object> patch =
        Map.of("metadata", Map.of("labels", Collections.singletonMap(key, value)));
    client
        .nodes()
        .withName(node)
        .patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(patch));
  }
}
