package dev.tessera.controller.publish;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * What each node's plugin reported in its GpuNode's status, parsed once per change into the api's
 * records. The controller keeps these instead of the GpuNode objects: an inventory as records is a
 * fraction of the same JSON held as maps, and a resync then renders without parsing anything. A
 * status that cannot be read is rejected here; whether a report can be published is the business of
 * the offering its node asks for ({@link PoolRender}).
 */
final class ReportedNodes {
  private static final Logger LOG = LoggerFactory.getLogger(ReportedNodes.class);

  /**
   * A node's report; {@code health} is all-healthy when the plugin reported none.
   *
   * @param uid the GpuNode's UID (its Events name it)
   * @param offering the {@code status.offering} the controller last wrote there; null when none
   */
  record Reported(NodeInventory inventory, NodeHealth health, String uid, String offering) {
    Reported(NodeInventory inventory, NodeHealth health) {
      this(inventory, health, "", null);
    }

    /**
     * Whether the other report holds these very records and UID: a report parsed again unchanged
     * keeps its records ({@link ReportedNodes#update}), so identity says nothing was re-read.
     */
    boolean sameRecords(Reported other) {
      return inventory == other.inventory && health == other.health && uid.equals(other.uid);
    }
  }

  private static final TypeReference<List<MigProfile>> PROFILE_TABLE = new TypeReference<>() {};

  private final JsonMapper json;
  private final Map<String, Reported> byNode = new ConcurrentHashMap<>();
  private final Set<String> rejected = ConcurrentHashMap.newKeySet();
  private final SharedMigProfiles profiles = new SharedMigProfiles();

  /**
   * The {@code status.offering} the controller itself last wrote to each node's GpuNode: the watch
   * event its own write brings back changes nothing that decides the pool, and at a fleet's first
   * publish reconciling every node a second time for it cost as much as the first time.
   */
  private final Map<String, String> offeringsWritten = new ConcurrentHashMap<>();

  ReportedNodes(JsonMapper json) {
    this.json = json;
  }

  /**
   * Takes a GpuNode as the API server has it now; returns whether the node's pool may need
   * reconciling for it. It needs none when the report is the one already held and its offering is
   * unchanged or the one the controller wrote (the event of its own {@code status.offering} write).
   */
  boolean update(GenericKubernetesResource gpuNode) {
    String name = gpuNode.getMetadata().getName();
    Reported before = byNode.get(name);
    Reported report = null;
    try {
      report = report(gpuNode, before);
      rejected.remove(name);
    } catch (RejectedReport e) {
      LOG.atWarn()
          .addKeyValue("node", name)
          .addKeyValue("reason", e.getMessage())
          .setCause(e.getCause())
          .log("rejecting the GpuNode's status; the node gets no slices");
      rejected.add(name);
    }
    if (report == null) {
      byNode.remove(name);
      return true;
    }
    byNode.put(name, report);
    return before == null
        || !before.sameRecords(report)
        || !(Objects.equals(before.offering(), report.offering())
            || Objects.equals(offeringsWritten.get(name), report.offering()));
  }

  /** The controller writes {@code offering} to the node's GpuNode status (see {@link #update}). */
  void offeringWritten(String nodeName, String offering) {
    offeringsWritten.put(nodeName, offering);
  }

  /**
   * The report in a GpuNode; null while the plugin has reported no inventory. A report equal to the
   * one held ({@code before}) keeps its records: they were shared already, and the caller tells an
   * unchanged report by identity.
   */
  private Reported report(GenericKubernetesResource gpuNode, Reported before)
      throws RejectedReport {
    Object status = gpuNode.getAdditionalProperties().get("status");
    if (status == null) {
      return null;
    }
    if (!(status instanceof Map<?, ?> fields)) {
      throw new RejectedReport("status is not an object", null);
    }
    NodeInventory inventory = inventory(fields);
    if (inventory == null) {
      return null;
    }
    NodeHealth health = health(gpuNode, fields);
    String uid = gpuNode.getMetadata().getUid() == null ? "" : gpuNode.getMetadata().getUid();
    String offering = fields.get("offering") instanceof String o ? o : null;
    if (before != null && before.inventory().equals(inventory) && before.health().equals(health)) {
      return new Reported(before.inventory(), before.health(), uid, offering);
    }
    return new Reported(inventory, health, uid, offering);
  }

  /** Why a GpuNode's status is not taken. */
  private static final class RejectedReport extends Exception {
    private static final long serialVersionUID = 1L;

    RejectedReport(String reason, Throwable cause) {
      super(reason, cause);
    }
  }

  void remove(String nodeName) {
    byNode.remove(nodeName);
    rejected.remove(nodeName);
    offeringsWritten.remove(nodeName);
  }

  /** How many nodes' statuses could not be read (for the rejected-nodes gauge). */
  int rejectedNodes() {
    return rejected.size();
  }

  Optional<Reported> of(String nodeName) {
    return Optional.ofNullable(byNode.get(nodeName));
  }

  Set<String> nodes() {
    return Set.copyOf(byNode.keySet());
  }

  /** The inventory the node plugin reported, or null while it has reported none. */
  private NodeInventory inventory(Map<?, ?> status) throws RejectedReport {
    Object inventory = status.get("inventory");
    if (inventory == null) {
      return null;
    }
    if (!(inventory instanceof Map<?, ?> fields)) {
      throw new RejectedReport("the inventory is not an object", null);
    }
    try {
      return profiles.read(
          InventoryStatus.split(fields),
          raw -> json.convertValue(raw, NodeInventory.class),
          raw -> json.convertValue(raw, PROFILE_TABLE));
    } catch (RuntimeException e) {
      throw new RejectedReport("cannot read the inventory: " + e.getMessage(), e);
    }
  }

  /** The device health; a report the controller cannot read counts as healthy, and is logged. */
  private NodeHealth health(GenericKubernetesResource gpuNode, Map<?, ?> status) {
    if (status.get("health") == null) {
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
