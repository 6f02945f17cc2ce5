package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Memory shares of one GPU (offering {@code shared}, one simulated H100 offering 79 GiB): five pods
 * ask for 16 GiB each; the real scheduler fits four and keeps the fifth pending, and each running
 * share is an MPS client pinned to the memory its claim consumed.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class MemorySharesE2E {
  private static final String SCENARIO = "15-memory-shares";
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 1, Offering.SHARED);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
      tessera.close();
    }
  }

  @Test
  @Scenario("15-memory-shares")
  void fourSixteenGibSharesFitOnOneGpuAndTheFifthWaits() throws Exception {
    await().atMost(Duration.ofSeconds(30)).until(() -> !tessera.slices().isEmpty());
    tessera.applyScenario(SCENARIO);

    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(scheduled()).hasSize(4));
    for (Pod pod : scheduled()) {
      String saw = tessera.saw(pod.getMetadata().getName(), null);
      assertThat(saw).contains("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=16384M");
      assertThat(TesseraOnNode.gpus(saw)).containsExactly("0");
    }
    // The fifth has nowhere to go, and stays so.
    await()
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(7))
        .until(() -> scheduled().size() == 4);
    assertThat(tessera.mpsDaemonStarts()).isEqualTo(1);
    tessera.printClaims(); // the scenario is deleted after the class, so show its claims now
  }

  private static List<Pod> scheduled() {
    return IntStream.rangeClosed(1, 5)
        .mapToObj(
            i -> tessera.client().pods().inNamespace("default").withName("share-pod-" + i).get())
        .filter(p -> p != null && p.getSpec().getNodeName() != null)
        .toList();
  }
}
