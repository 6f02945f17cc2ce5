package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenario 1 on the real cluster: one GPU per pod from a ResourceClaimTemplate, two pods, two
 * distinct GPUs — allocated by the real scheduler, prepared by the plugin for the real kubelet,
 * injected by containerd through CDI.
 */
class GpuPerPodE2E {
  private static final Pattern GPU_NODE = Pattern.compile("(?m)/dev/nvidia(\\d+)$");
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 4, Offering.EXCLUSIVE);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  @Test
  void twoPodsGetTwoDistinctGpusWithTheDriverInjected() throws Exception {
    tessera.applyScenario("01-gpu-per-pod");
    try {
      String first = tessera.logsWhenDone("gpu-pod-1");
      String second = tessera.logsWhenDone("gpu-pod-2");
      System.out.printf("--- gpu-pod-1 saw:%n%s--- gpu-pod-2 saw:%n%s", first, second);

      for (String seen : List.of(first, second)) {
        assertThat(seen)
            .contains("NVIDIA_VISIBLE_DEVICES=void")
            .contains(
                "/dev/nvidiactl",
                "/dev/nvidia-uvm",
                "libcuda.so.1",
                "libnvidia-ml.so.1",
                "nvidia-smi");
      }
      assertThat(gpuNumbers(first)).hasSize(1);
      assertThat(gpuNumbers(second)).hasSize(1);
      assertThat(gpuNumbers(first)).doesNotContainAnyElementsOf(gpuNumbers(second));

      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(claims())
                      .hasSize(2)
                      .allSatisfy(
                          claim -> {
                            assertThat(claim.getStatus().getAllocation().getDevices().getResults())
                                .singleElement()
                                .satisfies(
                                    r -> assertThat(r.getDriver()).isEqualTo("gpu.tessera.dev"));
                            assertThat(claim.getStatus().getDevices())
                                .singleElement()
                                .satisfies(
                                    d -> {
                                      assertThat(d.getConditions().get(0).getType())
                                          .isEqualTo("Ready");
                                      assertThat(d.getConditions().get(0).getStatus())
                                          .isEqualTo("True");
                                      assertThat(d.getData().toString()).contains("GPU-");
                                    });
                          }));
      assertThat(tessera.cdiSpecs()).hasSize(2);
      assertThat(tessera.checkpointedClaims())
          .containsExactlyInAnyOrderElementsOf(
              claims().stream().map(c -> c.getMetadata().getUid()).toList());
    } finally {
      tessera.deleteScenario("01-gpu-per-pod");
    }
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(tessera.cdiSpecs()).isEmpty();
              assertThat(tessera.checkpointedClaims()).isEmpty();
            });
  }

  private static List<ResourceClaim> claims() {
    return tessera
        .client()
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("default")
        .list()
        .getItems();
  }

  private static List<String> gpuNumbers(String seen) {
    Matcher m = GPU_NODE.matcher(seen);
    var numbers = new java.util.ArrayList<String>();
    while (m.find()) {
      numbers.add(m.group(1));
    }
    return numbers;
  }
}
