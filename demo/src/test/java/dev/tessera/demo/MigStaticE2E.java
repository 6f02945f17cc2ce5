package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MIG devices an admin made, offered as they are ({@code mig-static}): 2 H100s, GPU 1 in MIG mode
 * with a 3g.40gb device at memory slice 4. A claim for that profile gets it, with the capability
 * nodes that let CUDA open the instance.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class MigStaticE2E {
  private static final String SCENARIO = "08-mig-static-by-profile";
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera =
        TesseraOnNode.start(
            Clusters.require(),
            "H100-SXM5-80GB",
            2,
            Offering.MIG_STATIC,
            "--mig-enabled",
            "1",
            "--mig",
            "1:9@4");
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
  @Scenario("08-mig-static-by-profile")
  void aMigDeviceByProfileComesWithItsCapabilityNodes() throws Exception {
    tessera.applyScenario(SCENARIO);
    String saw = tessera.saw("mig-pod", null);
    assertThat(TesseraOnNode.gpus(saw)).containsExactly("1");
    assertThat(saw)
        .containsPattern("nvidia-cap\\d+")
        .containsPattern("(?s)nvidia-cap\\d+.*nvidia-cap\\d+");
    tessera.assertClaimsReady(1);
    var result =
        tessera.claims().get(0).getStatus().getAllocation().getDevices().getResults().get(0);
    assertThat(result.getDevice()).isEqualTo("gpu-1-mig-3g40gb-4");
    assertThat(tessera.claims().get(0).getStatus().getDevices().get(0).getData().toString())
        .contains("MIG-");
  }

  @Test
  void anAdminPodSeesTheMigDeviceAnotherClaimHoldsWithTheMonitorCapability() throws Exception {
    tessera.applyScenario(SCENARIO);
    String user = tessera.saw("mig-pod", null);
    String userClaim = tessera.claims().get(0).getMetadata().getUid();
    Path monitor = tessera.scenario("16-admin-access").resolveSibling("mig-monitor.yaml");
    tessera.apply(monitor);
    try {
      String admin = tessera.saw("gpu-monitoring", "mig-admin-pod", null);
      assertThat(TesseraOnNode.gpus(admin)).containsExactly("1");
      // The monitor capability (capabilities/mig/monitor) is the admin's, not the user's.
      assertThat(admin).contains("TESSERA_ADMIN_ACCESS=true").containsPattern("(?m)nvidia-cap2$");
      assertThat(user).doesNotContainPattern("(?m)nvidia-cap2$");
    } finally {
      try (var in = Files.newInputStream(monitor)) {
        tessera.client().load(in).withGracePeriod(1).delete();
      }
    }
    // The admin claim's unprepare leaves the user's claim, spec and MIG device as they were.
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(() -> assertThat(tessera.checkpointedClaims()).containsExactly(userClaim));
    assertThat(tessera.cdiSpecs())
        .singleElement()
        .satisfies(s -> assertThat(s).contains(userClaim));
    assertThat(
            tessera
                .client()
                .pods()
                .inNamespace("default")
                .withName("mig-pod")
                .get()
                .getStatus()
                .getPhase())
        .isEqualTo("Running");
  }
}
