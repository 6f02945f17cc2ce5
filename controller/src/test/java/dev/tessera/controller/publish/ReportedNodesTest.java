package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * Which GpuNode events need the node's pool reconciled: a changed report does, the controller's own
 * {@code status.offering} write and the plugin's other status fields do not (at a fleet's first
 * publish each node was reconciled a second time for its own offering write).
 */
class ReportedNodesTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final ReportedNodes nodes = new ReportedNodes(JSON);

  @Test
  void aNewReportNeedsAReconcile() {
    assertThat(nodes.update(gpuNode(status(inventory(80), NodeHealth.ALL_HEALTHY)))).isTrue();
    assertThat(nodes.of("node-a")).isPresent();
  }

  @Test
  void theControllersOwnOfferingWriteNeedsNone() {
    nodes.update(gpuNode(status(inventory(80), NodeHealth.ALL_HEALTHY)));
    var before = nodes.of("node-a").orElseThrow();
    nodes.offeringWritten("node-a", "mig-dynamic");

    var status = status(inventory(80), NodeHealth.ALL_HEALTHY);
    status.put("offering", "mig-dynamic");
    assertThat(nodes.update(gpuNode(status))).isFalse();
    var after = nodes.of("node-a").orElseThrow();
    assertThat(after.offering()).isEqualTo("mig-dynamic");
    assertThat(after.inventory()).isSameAs(before.inventory());
  }

  @Test
  void anOfferingSomeoneElseWroteNeedsOne() {
    nodes.update(gpuNode(status(inventory(80), NodeHealth.ALL_HEALTHY)));
    nodes.offeringWritten("node-a", "exclusive");

    var status = status(inventory(80), NodeHealth.ALL_HEALTHY);
    status.put("offering", "shared");
    assertThat(nodes.update(gpuNode(status))).isTrue();
    assertThat(nodes.of("node-a").orElseThrow().offering()).isEqualTo("shared");
  }

  @Test
  void thePluginsOtherStatusFieldsNeedNone() {
    nodes.update(gpuNode(status(inventory(80), NodeHealth.ALL_HEALTHY)));

    var status = status(inventory(80), NodeHealth.ALL_HEALTHY);
    status.put("gpusFree", 3);
    assertThat(nodes.update(gpuNode(status))).isFalse();
  }

  @Test
  void aChangedInventoryOrHealthNeedsOne() {
    nodes.update(gpuNode(status(inventory(80), NodeHealth.ALL_HEALTHY)));

    assertThat(nodes.update(gpuNode(status(inventory(40), NodeHealth.ALL_HEALTHY)))).isTrue();
    assertThat(nodes.of("node-a").orElseThrow().inventory().gpus().get(0).memoryBytes())
        .isEqualTo(40L << 30);

    assertThat(nodes.update(gpuNode(status(inventory(40), unhealthy())))).isTrue();
    assertThat(nodes.of("node-a").orElseThrow().health().unhealthyCount()).isEqualTo(1);
  }

  @Test
  void aReportWithdrawnNeedsOne() {
    nodes.update(gpuNode(status(inventory(80), NodeHealth.ALL_HEALTHY)));

    assertThat(nodes.update(gpuNode(new HashMap<>(Map.of("gpusFree", 0))))).isTrue();
    assertThat(nodes.of("node-a")).isEmpty();
  }

  private static NodeInventory inventory(long memoryGiB) {
    return new NodeInventory(
        "580.95.05",
        "13.0",
        "13.580.95.05",
        List.of(
            new Gpu(
                0,
                0,
                "GPU-0",
                "NVIDIA H100 80GB HBM3",
                "Nvidia",
                "Hopper",
                "9.0",
                memoryGiB << 30,
                "00000000:10:00.0",
                null,
                null,
                MigMode.DISABLED,
                List.of(),
                List.of())));
  }

  /** gpu-0 tainted for XID 79 (also the Events IT's taint). */
  static NodeHealth unhealthy() {
    return new NodeHealth(
        List.of(
            new DeviceHealth(
                "gpu-0",
                List.of(
                    new DeviceProblem(
                        "gpu.tessera.dev/xid",
                        "79",
                        TaintEffect.NO_SCHEDULE,
                        "GPU has fallen off the bus",
                        Instant.parse("2026-12-01T10:00:00Z"),
                        null)))));
  }

  private static Map<String, Object> status(NodeInventory inventory, NodeHealth health) {
    var status = new HashMap<String, Object>();
    status.put("inventory", JSON.convertValue(inventory, Object.class));
    status.put("health", JSON.convertValue(health, Object.class));
    return status;
  }

  /** GpuNode node-a (UID uid-a) with {@code status}; also the inventory forms' IT's. */
  static GenericKubernetesResource gpuNode(Object status) {
    return gpuNode("node-a", "uid-a", status);
  }

  static GenericKubernetesResource gpuNode(String name, String uid, Object status) {
    var gpuNode = new GenericKubernetesResource();
    gpuNode.setApiVersion("gpu.tessera.dev/v1alpha1");
    gpuNode.setKind("GpuNode");
    gpuNode.setMetadata(new ObjectMetaBuilder().withName(name).withUid(uid).build());
    gpuNode.setAdditionalProperty("status", status);
    return gpuNode;
  }
}
