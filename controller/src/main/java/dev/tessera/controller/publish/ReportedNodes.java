package dev.tessera.controller.publish;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * What each node's plugin reported in its GpuNode's status, parsed once per change into the api's
 * records. The controller keeps these instead of the GpuNode objects: an inventory as records is a
 * fraction of the same JSON held as maps, and a resync then renders without parsing anything.
 */
final class ReportedNodes {
  private static final Logger LOG = LoggerFactory.getLogger(ReportedNodes.class);

  /** A node's report; {@code health} is all-healthy when the plugin reported none. */
  record Reported(NodeInventory inventory, NodeHealth health) {}

  private final JsonMapper json;
  private final Map<String, Reported> byNode = new ConcurrentHashMap<>();

  ReportedNodes(JsonMapper json) {
    this.json = json;
  }

  /** Takes a GpuNode as the API server has it now. */
  void update(GenericKubernetesResource gpuNode) {
    String name = gpuNode.getMetadata().getName();
    NodeInventory inventory = inventory(gpuNode);
    if (inventory == null) {
      byNode.remove(name);
    } else {
      byNode.put(name, new Reported(inventory, health(gpuNode)));
    }
  }

  void remove(String nodeName) {
    byNode.remove(nodeName);
  }

  Optional<Reported> of(String nodeName) {
    return Optional.ofNullable(byNode.get(nodeName));
  }

  Set<String> nodes() {
    return Set.copyOf(byNode.keySet());
  }

  /** Devices reported unhealthy, over all nodes. */
  long unhealthyDevices() {
    return byNode.values().stream().mapToLong(r -> r.health().unhealthyCount()).sum();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(GenericKubernetesResource gpuNode) {
    return (Map<String, Object>) gpuNode.getAdditionalProperties().get("status");
  }

  /** The inventory the node plugin reported, or null while it has reported none (or garbage). */
  private NodeInventory inventory(GenericKubernetesResource gpuNode) {
    var status = status(gpuNode);
    if (status == null || status.get("inventory") == null) {
      return null;
    }
    try {
      return json.convertValue(status.get("inventory"), NodeInventory.class);
    } catch (RuntimeException e) {
      LOG.atWarn()
          .addKeyValue("node", gpuNode.getMetadata().getName())
          .setCause(e)
          .log("cannot read the GpuNode's inventory; the node gets no slices");
      return null;
    }
  }

  /** The device health; a report the controller cannot read counts as healthy, and is logged. */
  private NodeHealth health(GenericKubernetesResource gpuNode) {
    var status = status(gpuNode);
    if (status == null || status.get("health") == null) {
      return NodeHealth.ALL_HEALTHY;
    }
    try {
      return json.convertValue(status.get("health"), NodeHealth.class);
    } catch (RuntimeException e) {
      LOG.atWarn()
          .addKeyValue("node", gpuNode.getMetadata().getName())
          .setCause(e)
          .log("cannot read the GpuNode's device health; publishing without taints");
      return NodeHealth.ALL_HEALTHY;
    }
  }
}
