package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.fuzz.Fuzz;
import dev.tessera.api.fuzz.JsonTrees;
import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * A plugin may write anything into its GpuNode's status: the controller parses it into a report or
 * rejects the node with a reason, and every offering either renders the report or refuses it with a
 * reason; nothing escapes the informer's handler or the worker's render, and a bad node leaves the
 * others' reports as they were.
 */
class ReportedNodesFuzzTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final MigProfile ONE_G =
      new MigProfile(
          19,
          "1g.10gb",
          1,
          7,
          10L << 30,
          16,
          1,
          0,
          0,
          0,
          0,
          List.of(new MigPlacement(0, 1), new MigPlacement(1, 1)));
  private static final MigProfile THREE_G =
      new MigProfile(
          9, "3g.40gb", 3, 2, 40L << 30, 60, 3, 2, 0, 0, 0, List.of(new MigPlacement(4, 4)));
  private static final NodeInventory INVENTORY =
      new NodeInventory(
          "580.95.05",
          "13.0",
          "13.580.95.05",
          List.of(
              new Gpu(
                  0,
                  0,
                  "GPU-0",
                  "NVIDIA A100-SXM4-80GB",
                  "Nvidia",
                  "Ampere",
                  "8.0",
                  80L << 30,
                  "00000000:10:00.0",
                  "pci0000:00",
                  0,
                  MigMode.ENABLED,
                  List.of(
                      new MigDevice(
                          "MIG-0", 1, 0, 19, "1g.10gb", new MigPlacement(0, 1), 10L << 30)),
                  List.of(ONE_G, THREE_G)),
              new Gpu(
                  1,
                  1,
                  "GPU-1",
                  "NVIDIA A100-SXM4-80GB",
                  "Nvidia",
                  "Ampere",
                  "8.0",
                  80L << 30,
                  "00000000:11:00.0",
                  null,
                  null,
                  MigMode.DISABLED,
                  List.of(),
                  List.of(ONE_G, THREE_G))));
  private static final NodeHealth HEALTH =
      new NodeHealth(
          List.of(
              new DeviceHealth(
                  "gpu-1",
                  List.of(
                      new DeviceProblem(
                          "gpu.tessera.dev/xid",
                          "79",
                          TaintEffect.NO_SCHEDULE,
                          "GPU has fallen off the bus",
                          Instant.parse("2026-12-01T10:00:00Z"),
                          null)))));
  private static final Object STATUS =
      Map.of(
          "inventory",
          JSON.convertValue(INVENTORY, Object.class),
          "health",
          JSON.convertValue(HEALTH, Object.class));
  private static final JsonTrees TREES =
      new JsonTrees(
          List.of(
              "inventory",
              "health",
              "gpus",
              "minor",
              "uuid",
              "migMode",
              "ENABLED",
              "migDevices",
              "migProfiles",
              "placements",
              "start",
              "size",
              "profile",
              "devices",
              "device",
              "problems",
              "effect",
              "NO_SCHEDULE",
              "since",
              "gpu-0",
              "gpu-0-mig-1g10gb-0",
              "key"));

  private final SliceRenderer renderer = new SliceRenderer();

  @Test
  void aMutatedStatusIsRenderedOrTheNodeRejected() {
    Fuzz.check(
        "GpuNode status, mutated",
        r -> TREES.mutationOf(List.of(STATUS), r),
        this::renderedOrRejected);
  }

  @Test
  void anyStatusIsRenderedOrTheNodeRejected() {
    Fuzz.check("GpuNode status, any JSON", r -> TREES.tree(r, 5), this::renderedOrRejected);
  }

  @Test
  void theUnmutatedStatusIsRendered() throws Exception {
    var nodes = new ReportedNodes(JSON);
    nodes.update(gpuNode("node-a", STATUS));
    assertThat(nodes.of("node-a"))
        .hasValueSatisfying(r -> assertThat(r.inventory()).isEqualTo(INVENTORY));
  }

  /**
   * Found by the mutated-status property: the renderer ran out of heap (an Error, past reconcile).
   * Only mig-dynamic publishes the profile table; the other offerings publish the node.
   */
  @Test
  void aPlacementOfAMillionSlicesIsRefusedByMigDynamicOnly() {
    var huge =
        new MigProfile(
            9,
            "3g.40gb",
            3,
            2,
            40L << 30,
            60,
            3,
            2,
            0,
            0,
            0,
            List.of(new MigPlacement(4, 1_437_248_457)));
    var gpu = INVENTORY.gpus().get(1);
    var inventory =
        new NodeInventory(
            "580.95.05",
            "13.0",
            "13.580.95.05",
            List.of(
                new Gpu(
                    1,
                    1,
                    "GPU-1",
                    gpu.productName(),
                    gpu.brand(),
                    gpu.architecture(),
                    gpu.cudaComputeCapability(),
                    gpu.memoryBytes(),
                    gpu.pciBusId(),
                    null,
                    null,
                    MigMode.DISABLED,
                    List.of(),
                    List.of(ONE_G, huge))));
    var nodes = new ReportedNodes(JSON);
    nodes.update(
        gpuNode("node-a", Map.of("inventory", JSON.convertValue(inventory, Object.class))));
    var report = nodes.of("node-a").orElseThrow();
    assertThat(nodes.rejectedNodes()).isZero();
    assertThat(PoolRender.of(renderer, report, Offering.MIG_DYNAMIC))
        .isInstanceOfSatisfying(
            PoolRender.Refused.class,
            refused ->
                assertThat(refused.reason())
                    .startsWith("the inventory cannot be published as mig-dynamic: ")
                    .contains("more than a counter set holds"));
    for (Offering offering : List.of(Offering.EXCLUSIVE, Offering.MIG_STATIC, Offering.SHARED)) {
      assertThat(PoolRender.of(renderer, report, offering))
          .isInstanceOfSatisfying(
              PoolRender.Published.class, p -> assertThat(p.slices()).isNotEmpty());
    }
  }

  @Test
  void anUnreadableStatusRejectsTheNodeUntilItIsReadable() {
    var nodes = new ReportedNodes(JSON);
    nodes.update(gpuNode("node-a", Map.of("inventory", Map.of("gpus", "none"))));
    assertThat(nodes.of("node-a")).isEmpty();
    assertThat(nodes.rejectedNodes()).isEqualTo(1);
    nodes.update(gpuNode("node-a", STATUS));
    assertThat(nodes.of("node-a")).isPresent();
    assertThat(nodes.rejectedNodes()).isZero();
  }

  private void renderedOrRejected(Object status) {
    var nodes = new ReportedNodes(JSON);
    nodes.update(gpuNode("good", STATUS));
    nodes.update(gpuNode("fuzzed", status));
    assertThat(nodes.of("good")).isPresent();
    nodes
        .of("fuzzed")
        .ifPresent(
            report -> {
              for (Offering offering : Offering.values()) {
                switch (PoolRender.of(renderer, report, offering)) {
                  case PoolRender.Refused r -> assertThat(r.reason()).contains(offering.label());
                  case PoolRender.Published p ->
                      assertThat(p.taintsDropped().isPresent())
                          .isEqualTo(!p.health().equals(report.health()));
                  case PoolRender.Withheld w -> throw new AssertionError("a report is withheld");
                }
              }
            });
  }

  private static GenericKubernetesResource gpuNode(String name, Object status) {
    var gpuNode = new GenericKubernetesResource();
    gpuNode.setApiVersion("gpu.tessera.dev/v1alpha1");
    gpuNode.setKind("GpuNode");
    gpuNode.setMetadata(new ObjectMetaBuilder().withName(name).build());
    gpuNode.setAdditionalProperty("status", status);
    return gpuNode;
  }
}
