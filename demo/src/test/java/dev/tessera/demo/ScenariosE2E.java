package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The demo scenarios on a real cluster, Tessera on a simulated node of 4 H100s offered whole: the
 * real scheduler allocates from Tessera's slices, the plugin prepares for the real kubelet,
 * containerd injects the devices through CDI. Each scenario prints what its pods saw, and after it
 * is deleted no CDI spec or checkpoint entry of it is left.
 */
class ScenariosE2E {
  private static final Pattern GPU_NODE = Pattern.compile("(?m)/dev/nvidia(\\d+)$");
  private static TesseraOnNode tessera;
  private String scenario;

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

  private void run(String name) throws Exception {
    scenario = name;
    System.out.printf("%n== scenario %s%n", name);
    tessera.applyScenario(name);
  }

  /** Deletes the scenario and waits until the plugin has unprepared everything of it. */
  @AfterEach
  void deleteScenario() throws Exception {
    if (scenario == null) {
      return;
    }
    tessera.deleteScenario(scenario);
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> {
              assertThat(tessera.cdiSpecs()).isEmpty();
              assertThat(tessera.checkpointedClaims()).isEmpty();
            });
  }

  private static String saw(String pod, String container) {
    String log = tessera.logsWhenDone(pod, container);
    System.out.printf("--- %s%s saw:%n%s", pod, container == null ? "" : "/" + container, log);
    assertThat(log)
        .contains("NVIDIA_VISIBLE_DEVICES=void")
        .contains(
            "/dev/nvidiactl", "/dev/nvidia-uvm", "libcuda.so.1", "libnvidia-ml.so.1", "nvidia-smi");
    return log;
  }

  private static List<String> gpus(String log) {
    Matcher m = GPU_NODE.matcher(log);
    var numbers = new ArrayList<String>();
    while (m.find()) {
      numbers.add(m.group(1));
    }
    return numbers;
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

  private static void assertClaimsReady(int count) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(claims())
                    .hasSize(count)
                    .allSatisfy(
                        claim ->
                            assertThat(claim.getStatus().getDevices())
                                .isNotEmpty()
                                .allSatisfy(
                                    d -> {
                                      assertThat(d.getDriver()).isEqualTo("gpu.tessera.dev");
                                      assertThat(d.getConditions().get(0).getType())
                                          .isEqualTo("Ready");
                                      assertThat(d.getConditions().get(0).getStatus())
                                          .isEqualTo("True");
                                      assertThat(d.getData().toString()).contains("GPU-");
                                    })));
  }

  @Test
  void aGpuPerPodFromATemplate() throws Exception {
    run("01-gpu-per-pod");
    List<String> first = gpus(saw("gpu-pod-1", null));
    List<String> second = gpus(saw("gpu-pod-2", null));
    assertThat(first).hasSize(1);
    assertThat(second).hasSize(1).doesNotContainAnyElementsOf(first);
    assertClaimsReady(2);
    assertThat(tessera.cdiSpecs()).hasSize(2);
    assertThat(tessera.checkpointedClaims())
        .containsExactlyInAnyOrderElementsOf(
            claims().stream().map(c -> c.getMetadata().getUid()).toList());
  }

  @Test
  void twoGpusInOneClaim() throws Exception {
    run("02-two-gpus-one-claim");
    assertThat(gpus(saw("two-gpu-pod", null))).hasSize(2).doesNotHaveDuplicates();
    assertClaimsReady(1);
    assertThat(claims().get(0).getStatus().getDevices()).hasSize(2);
  }

  @Test
  void aClaimSharedByTheContainersOfAPod() throws Exception {
    run("03-claim-shared-by-containers");
    List<String> first = gpus(saw("two-container-pod", "first"));
    List<String> second = gpus(saw("two-container-pod", "second"));
    assertThat(first).hasSize(1).isEqualTo(second);
    assertClaimsReady(1);
  }

  @Test
  void aClaimSharedByTwoPods() throws Exception {
    run("04-claim-shared-by-pods");
    List<String> first = gpus(saw("team-pod-1", null));
    List<String> second = gpus(saw("team-pod-2", null));
    assertThat(first).hasSize(1).isEqualTo(second);
    assertClaimsReady(1);
    assertThat(claims().get(0).getStatus().getReservedFor()).hasSize(2);
    assertThat(tessera.cdiSpecs()).hasSize(1);
  }

  @Test
  void gpusChosenByMemoryProductArchitectureAndComputeCapability() throws Exception {
    run("05-select-by-attributes");
    saw("big-memory-pod", null);
    saw("hopper-pod", null);
    assertClaimsReady(2);
  }

  @Test
  void aClaimNoGpuCanSatisfyStaysPendingAndSaysWhy() throws Exception {
    run("06-unsatisfiable");
    PodCondition scheduled =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    condition(
                        tessera
                            .client()
                            .pods()
                            .inNamespace("default")
                            .withName("too-big-pod")
                            .get()),
                c -> c != null && "False".equals(c.getStatus()) && c.getMessage() != null);
    System.out.printf("--- too-big-pod is %s: %s%n", scheduled.getReason(), scheduled.getMessage());
    assertThat(scheduled.getReason()).isEqualTo("Unschedulable");
    assertThat(scheduled.getMessage()).containsIgnoringCase("claim");
    assertThat(tessera.cdiSpecs()).isEmpty();
  }

  private static PodCondition condition(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()))
        .findFirst()
        .orElse(null);
  }
}
