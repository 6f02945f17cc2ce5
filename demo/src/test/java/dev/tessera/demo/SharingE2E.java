package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Per-claim sharing on the real cluster (2 simulated H100s offered whole): a claim's opaque config
 * chooses time-slicing or MPS; the plugin sets the GPU up through the driver's tools (the
 * simulator's stand-ins record what they were asked), both pods of the claim run on the same GPU,
 * and the set-up is undone when the claim goes.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class SharingE2E {
  private static TesseraOnNode tessera;
  private String scenario;

  @BeforeAll
  static void start() throws Exception {
    tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 2, Offering.EXCLUSIVE);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  @AfterEach
  void deleteScenario() throws Exception {
    if (scenario != null) {
      tessera.deleteScenarioAndWaitForUnprepare(scenario);
    }
  }

  @Test
  @Scenario("13-time-sliced-claim-shared-by-pods")
  void aTimeSlicedClaimSetsTheGpusTimeSliceAndRestoresIt() throws Exception {
    scenario = "13-time-sliced-claim-shared-by-pods";
    tessera.applyScenario(scenario);

    var a = TesseraOnNode.gpus(tessera.saw("time-sliced-pod-a", null));
    var b = TesseraOnNode.gpus(tessera.saw("time-sliced-pod-b", null));
    assertThat(a).hasSize(1).isEqualTo(b);
    assertThat(tessera.driverToolLog("nvidia-smi"))
        .containsPattern("compute-policy -i GPU-\\S+ --set-timeslice 3");

    tessera.deleteScenarioAndWaitForUnprepare(scenario);
    scenario = null;
    assertThat(tessera.driverToolLog("nvidia-smi"))
        .containsPattern("(?s)--set-timeslice 3.*--set-timeslice 0");
  }

  @Test
  @Scenario("14-mps-claim-shared-by-pods")
  void anMpsClaimRunsOneDaemonWithTheClaimsLimitsAndStopsIt() throws Exception {
    scenario = "14-mps-claim-shared-by-pods";
    tessera.applyScenario(scenario);

    String a = tessera.saw("mps-pod-a", null);
    String b = tessera.saw("mps-pod-b", null);
    assertThat(TesseraOnNode.gpus(a)).hasSize(1).isEqualTo(TesseraOnNode.gpus(b));
    for (String saw : new String[] {a, b}) {
      assertThat(saw)
          .contains("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50")
          .contains("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=10240M")
          .contains("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps")
          .contains("/tmp/nvidia-mps");
    }
    assertThat(tessera.mpsDaemonStarts()).isEqualTo(1);

    tessera.deleteScenarioAndWaitForUnprepare(scenario);
    scenario = null;
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(tessera.driverToolLog("nvidia-cuda-mps-control")).contains("quit"));
  }
}
