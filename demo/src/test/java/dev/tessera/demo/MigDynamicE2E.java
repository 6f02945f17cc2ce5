package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MIG devices made at prepare ({@code mig-dynamic}): one H100 not in MIG mode, offered whole and as
 * every MIG placement. A claim for a 1g.10gb gets a placement; the plugin creates the instance
 * (switching MIG mode on, which Hopper does without a reset), the pod sees it, and the instance is
 * destroyed when the pod and claim go.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class MigDynamicE2E {
  private static final String SCENARIO = "11-mig-dynamic-by-profile";
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 1, Offering.MIG_DYNAMIC);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  @AfterEach
  void deleteScenario() throws Exception {
    tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
  }

  @Test
  @Scenario("11-mig-dynamic-by-profile")
  void aMigDeviceByProfileIsCreatedAtPrepareAndDestroyedAfter() throws Exception {
    tessera.applyScenario(SCENARIO);
    String saw = tessera.saw("mig-dynamic-pod", null);
    assertThat(TesseraOnNode.gpus(saw)).containsExactly("0");
    assertThat(saw).containsPattern("(?s)nvidia-cap\\d+.*nvidia-cap\\d+");
    tessera.assertClaimsReady(1);
    var claim = tessera.claims().get(0);
    String device = claim.getStatus().getAllocation().getDevices().getResults().get(0).getDevice();
    assertThat(device).startsWith("gpu-0-mig-1g10gb-");
    assertThat(claim.getStatus().getDevices().get(0).getData().toString()).contains("MIG-");
    assertThat(gpuInstances()).hasSize(1);

    tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
    assertThat(gpuInstances()).isEmpty();
  }

  /** The GPU instances of GPU 0 as the (simulated) driver announces them. */
  private static List<Path> gpuInstances() throws Exception {
    Path mig = tessera.driverRoot().resolve("proc/driver/nvidia/capabilities/gpu0/mig");
    if (!Files.isDirectory(mig)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(mig)) {
      return entries.filter(p -> p.getFileName().toString().startsWith("gi")).toList();
    }
  }
}
