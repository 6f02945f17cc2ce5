package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Device taints on a real cluster, two H100s offered whole. An admin's DeviceTaintRules (GA in
 * 1.37): {@code NoSchedule} keeps new pods off a GPU, a request's toleration lets a pod through,
 * {@code NoExecute} evicts the pod on it and its claim is unprepared. And Tessera's own health
 * taint set to {@code NoExecute} ({@code controller.unhealthyTaintEffect}): a fatal XID on a GPU in
 * use evicts its pod the same way.
 */
@Scenario("20-device-taint-rules") // both tests: the admin's rules, and Tessera's own taint
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(TesseraLogsOnFailure.class)
class DeviceTaintRulesE2E {
  private static final String SCENARIO = "20-device-taint-rules";
  private static TesseraOnNode tessera;

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
  void deleteEverything() throws Exception {
    // Everything first, then one wait: each wait is for every claim of the node to be unprepared.
    for (Path manifest :
        List.of(step("evict.yaml"), step("more-pods.yaml"), tessera.scenario("01-gpu-per-pod"))) {
      try (var in = Files.newInputStream(manifest)) {
        tessera.client().load(in).withGracePeriod(1).delete();
      }
    }
    tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
  }

  private static Path step(String file) {
    return tessera.scenario(SCENARIO).resolveSibling(file);
  }

  @Test
  @Order(1)
  void anAdminsRulesKeepPodsOffAGpuLetTolerantOnesThroughAndEvict() throws Exception {
    tessera.applyScenario(SCENARIO);
    assertThat(TesseraOnNode.gpus(tessera.saw("untolerating-pod", null))).containsExactly("1");

    tessera.apply(step("more-pods.yaml"));
    assertThat(TesseraOnNode.gpus(tessera.saw("tolerating-pod", null))).containsExactly("0");
    await()
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(6))
        .until(() -> pod("waiting-pod").getSpec().getNodeName() == null);
    String tolerating = claimOf("tolerating-pod").getMetadata().getUid();
    assertThat(tessera.checkpointedClaims()).contains(tolerating);

    // GPU 0 breaks: the pod on it is evicted, its claim unprepared; the pod on GPU 1 runs on.
    tessera.apply(step("evict.yaml"));
    awaitEvictedAndUnprepared("tolerating-pod", tolerating);
    assertThat(pod("untolerating-pod").getStatus().getPhase()).isEqualTo("Running");
    assertThat(tessera.checkpointedClaims())
        .contains(claimOf("untolerating-pod").getMetadata().getUid());
  }

  @Test
  @Order(2)
  void aFatalXidEvictsThePodOnTheGpuWhenTesseraTaintsNoExecute() throws Exception {
    tessera.release().upgrade("controller.unhealthyTaintEffect=NoExecute");
    tessera.applyScenario("01-gpu-per-pod");
    List<String> first = TesseraOnNode.gpus(tessera.saw("gpu-pod-1", null));
    TesseraOnNode.gpus(tessera.saw("gpu-pod-2", null));
    String uid = claimOf("gpu-pod-1").getMetadata().getUid();

    tessera.injectNvmlEvent(first.get(0) + " xid 79");

    awaitEvictedAndUnprepared("gpu-pod-1", uid);
    assertThat(pod("gpu-pod-2").getStatus().getPhase()).isEqualTo("Running");
    tessera.release().upgrade("controller.unhealthyTaintEffect=NoSchedule");
  }

  /** The pod is gone (or failed, evicted) and its claim has no checkpoint entry or CDI spec. */
  private static void awaitEvictedAndUnprepared(String pod, String claimUid) {
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              Pod p = pod(pod);
              assertThat(p == null || "Failed".equals(p.getStatus().getPhase()))
                  .as(pod + " evicted")
                  .isTrue();
              assertThat(tessera.checkpointedClaims()).doesNotContain(claimUid);
              assertThat(tessera.cdiSpecs()).noneMatch(spec -> spec.contains(claimUid));
            });
  }

  private static Pod pod(String name) {
    return tessera.client().pods().inNamespace("default").withName(name).get();
  }

  private static ResourceClaim claimOf(String pod) {
    return tessera.claims().stream()
        .filter(c -> c.getMetadata().getName().startsWith(pod + "-"))
        .findFirst()
        .orElseThrow();
  }
}
