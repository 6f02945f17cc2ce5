package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
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
}
