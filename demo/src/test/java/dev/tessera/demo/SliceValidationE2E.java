package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.HealthTaintKeys;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.publish.PoolSlices;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import dev.tessera.plugin.nvml.JnaNvml;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every slice the controller can render is accepted by the real API server's validation: each
 * offering on each simulated GPU (A100-40GB, H100-80GB, L40S; GPU 0 in MIG mode where MIG exists)
 * with 1, 8 and 16 GPUs, healthy and with a tainted GPU — created with server-side dry run, so the
 * API server validates and stores nothing.
 */
class SliceValidationE2E {
  private static Path roots;
  private static KubernetesClient client;
  private final SliceRenderer renderer = new SliceRenderer();
  private final PoolSlices pool = new PoolSlices("gpu.tessera.dev");

  @BeforeAll
  static void connect() throws Exception {
    Cluster cluster = Clusters.requireApiServer();
    roots = Files.createTempDirectory("tessera-validation");
    client = cluster.adminClient();
  }

  @AfterAll
  static void close() throws Exception {
    if (client != null) {
      client.close();
    }
    if (roots != null) {
      TestFiles.deleteTree(roots);
    }
  }

  static Stream<Arguments> pools() {
    var cases = new ArrayList<Arguments>();
    for (String profile : List.of("A100-SXM4-40GB", "H100-SXM5-80GB", "L40S")) {
      for (int gpus : List.of(1, 8, 16)) {
        for (Offering offering : Offering.values()) {
          for (boolean tainted : List.of(false, true)) {
            cases.add(Arguments.of(profile, gpus, offering, tainted));
          }
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} x{1} {2} tainted={3}")
  @MethodSource("pools")
  void theApiServerAcceptsEverySlice(String profile, int gpus, Offering offering, boolean tainted)
      throws Exception {
    NodeInventory node = inventory(profile, gpus);
    var health =
        tainted
            ? new NodeHealth(
                List.of(
                    new DeviceHealth(
                        "gpu-0",
                        List.of(
                            problem(HealthTaintKeys.XID, "48", TaintEffect.NO_SCHEDULE),
                            problem(HealthTaintKeys.XID, "13", TaintEffect.NONE),
                            problem(HealthTaintKeys.GPU_LOST, "", TaintEffect.NO_SCHEDULE)))))
            : NodeHealth.ALL_HEALTHY;
    var slices =
        pool.slices(
            "validation-node",
            "00000000-0000-0000-0000-000000000001",
            1,
            renderer.render(node, offering, health));

    for (var slice : slices) {
      var accepted = client.resource(slice).dryRun().create();
      assertThat(accepted.getSpec().getPool().getResourceSliceCount())
          .isEqualTo((long) slices.size());
    }
  }

  private static DeviceProblem problem(String key, String value, TaintEffect effect) {
    Instant now = Instant.parse("2026-11-30T12:00:00Z");
    return new DeviceProblem(key, value, effect, "validation", now, now);
  }

  private static NodeInventory inventory(String profile, int gpus) throws Exception {
    Path root = roots.resolve(profile + "x" + gpus);
    if (!Files.exists(root)) {
      String[] mig = profile.equals("L40S") ? new String[0] : new String[] {"--mig", "0:9@4,19@0"};
      SimulatedNode.layOut(root, profile, gpus, mig);
    }
    try (var nvml = JnaNvml.open(root)) {
      return GpuDiscovery.onNode(nvml, root).discover();
    }
  }
}
