package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The demo scenarios on a real cluster, Tessera on a simulated node of 4 H100s offered whole: the
 * real scheduler allocates from Tessera's slices, the plugin prepares for the real kubelet,
 * containerd injects the devices through CDI. Each scenario prints what its pods saw, and after it
 * is deleted no CDI spec or checkpoint entry of it is left.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class ScenariosE2E {
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
    tessera.applyScenario(name);
  }

  @AfterEach
  void deleteScenario() throws Exception {
    if (scenario != null) {
      tessera.deleteScenarioAndWaitForUnprepare(scenario);
    }
  }

  private static String saw(String pod, String container) {
    return tessera.saw(pod, container);
  }

  private static List<String> gpus(String log) {
    return TesseraOnNode.gpus(log);
  }

  private static List<ResourceClaim> claims() {
    return tessera.claims();
  }

  private static void assertClaimsReady(int count) {
    tessera.assertClaimsReady(count);
  }

  @Test
  void theNodesGpusAreReportedAndThePluginHoldsItsLease() {
    var gpuNodes = tessera.client().genericKubernetesResources(GpuNodeReporter.GPU_NODES);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              var gpuNode = gpuNodes.withName(tessera.nodeName()).get();
              assertThat(gpuNode).isNotNull();
              assertThat(gpuNode.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(o -> assertThat(o.getKind()).isEqualTo("Node"));
              @SuppressWarnings("unchecked")
              var status =
                  (java.util.Map<String, Object>) gpuNode.getAdditionalProperties().get("status");
              assertThat(status)
                  .containsEntry("gpuCount", 4)
                  .containsEntry("product", "NVIDIA H100 80GB HBM3");
            });
    var lease =
        tessera
            .client()
            .leases()
            .inNamespace(tessera.deployment().leaseNamespace())
            .withName("tessera-" + tessera.nodeName())
            .get();
    assertThat(lease).isNotNull();
    assertThat(
            Duration.between(lease.getSpec().getRenewTime(), java.time.ZonedDateTime.now()).abs())
        .isLessThan(Duration.ofSeconds(30));
    // The API server names the field manager after the client's user agent: the plugin's own
    // (another test's client may have written some field of these before; not the renewal's).
    assertThat(lease.getMetadata().getManagedFields())
        .filteredOn(
            f -> f.getFieldsV1().getAdditionalProperties().toString().contains("f:renewTime"))
        .extracting(ManagedFieldsEntry::getManager)
        .containsExactly("tessera-kubelet-plugin");
    assertThat(gpuNodes.withName(tessera.nodeName()).get().getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .contains("tessera-kubelet-plugin");
  }

  @Test
  void theControllerWritesNothingWhileNothingChanges() {
    Map<String, String> versions = resourceVersions();
    // The controller resyncs every 2 s here: several resyncs must leave the slices alone.
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(10))
        .until(() -> resourceVersions().equals(versions));
  }

  @Test
  void theControllerCountsWhatItDoesInItsMetrics() throws Exception {
    String metrics = tessera.deployment().controllerMetrics();
    assertThat(metrics)
        .contains("tessera_controller_leader 1.0")
        .contains("tessera_controller_reported_nodes 1.0")
        .contains("tessera_controller_unhealthy_devices 0.0")
        .containsPattern("tessera_controller_slice_writes_total\\{operation=\"create\"} [1-9]")
        .containsPattern("tessera_controller_reconcile_seconds_count\\{outcome=\"success\"} [1-9]");
  }

  @Test
  void slicesWipedBehindTheControllersBackArePublishedAgain() {
    // What the kubelet does at its start and 30 s after a plugin is gone: it deletes the node's
    // slices.
    tessera.slices().forEach(s -> tessera.client().resource(s).delete());
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(tessera.slices())
                    .isNotEmpty()
                    .allSatisfy(
                        s ->
                            assertThat(s.getSpec().getPool().getResourceSliceCount())
                                .isEqualTo(tessera.slices().size())));
  }

  private static Map<String, String> resourceVersions() {
    return tessera.slices().stream()
        .collect(
            Collectors.toMap(
                s -> s.getMetadata().getName(), s -> s.getMetadata().getResourceVersion()));
  }

  @Test
  @Scenario("01-gpu-per-pod")
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
  @Scenario("02-two-gpus-one-claim")
  void twoGpusInOneClaim() throws Exception {
    run("02-two-gpus-one-claim");
    assertThat(gpus(saw("two-gpu-pod", null))).hasSize(2).doesNotHaveDuplicates();
    assertClaimsReady(1);
    assertThat(claims().get(0).getStatus().getDevices()).hasSize(2);
  }

  @Test
  @Scenario("17-all-gpus-one-claim")
  void allocationModeAllGivesOneClaimEveryGpuOfTheNode() throws Exception {
    run("17-all-gpus-one-claim");
    assertThat(gpus(saw("all-gpus-pod", null))).containsExactlyInAnyOrder("0", "1", "2", "3");
    assertClaimsReady(1);
    assertThat(claims().get(0).getStatus().getDevices()).hasSize(4);
    assertThat(tessera.cdiSpecs()).hasSize(1);
  }

  @Test
  @Scenario("18-first-available-fallback")
  void firstAvailableFallsBackToTheSecondChoiceWhenNoGpuHasTheFirst() throws Exception {
    run("18-first-available-fallback");
    assertThat(gpus(saw("first-available-pod", null))).hasSize(1);
    assertClaimsReady(1);
    var result = claims().get(0).getStatus().getAllocation().getDevices().getResults().get(0);
    assertThat(result.getRequest()).isEqualTo("gpu/any");
    // The prepared device answers for the request the claim named, not for the subrequest.
    assertThat(claims().get(0).getStatus().getDevices())
        .singleElement()
        .satisfies(d -> assertThat(d.getDevice()).isEqualTo(result.getDevice()));
  }

  @Test
  @Scenario("19-claim-shared-by-init-container")
  void aClaimSharedByAnInitContainerAndTheAppContainerIsPreparedOnce() throws Exception {
    run("19-claim-shared-by-init-container");
    List<String> init = gpus(saw("init-container-pod", "check"));
    List<String> app = gpus(saw("init-container-pod", "app"));
    assertThat(init).hasSize(1).isEqualTo(app);
    assertClaimsReady(1);
    assertThat(tessera.cdiSpecs()).hasSize(1);
    assertThat(tessera.checkpointedClaims())
        .containsExactly(claims().get(0).getMetadata().getUid());
  }

  @Test
  @Scenario("03-claim-shared-by-containers")
  void aClaimSharedByTheContainersOfAPod() throws Exception {
    run("03-claim-shared-by-containers");
    List<String> first = gpus(saw("two-container-pod", "first"));
    List<String> second = gpus(saw("two-container-pod", "second"));
    assertThat(first).hasSize(1).isEqualTo(second);
    assertClaimsReady(1);
  }

  @Test
  @Scenario("04-claim-shared-by-pods")
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
  @Scenario("05-select-by-attributes")
  void gpusChosenByMemoryProductArchitectureAndComputeCapability() throws Exception {
    run("05-select-by-attributes");
    saw("big-memory-pod", null);
    saw("hopper-pod", null);
    assertClaimsReady(2);
  }

  @Test
  @Scenario("06-unsatisfiable")
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

  @Test
  @Scenario("09-gpu-as-extended-resource")
  void aGpuAskedForAsTheExtendedResourceNvidiaComGpu() throws Exception {
    var deviceClass =
        tessera.apply(
            TesseraOnNode.repoFile("deploy/manifests/deviceclass-gpu-extended-resource.yaml"));
    try {
      run("09-gpu-as-extended-resource");
      assertThat(gpus(saw("extended-resource-pod", null))).hasSize(1);
      // The scheduler made the pod's claim and says which it is.
      Pod pod =
          tessera.client().pods().inNamespace("default").withName("extended-resource-pod").get();
      var status = pod.getStatus().getExtendedResourceClaimStatus();
      assertThat(status).isNotNull();
      assertThat(status.getRequestMappings())
          .singleElement()
          .satisfies(m -> assertThat(m.getResourceName()).isEqualTo("nvidia.com/gpu"));
      assertClaimsReady(1);
      assertThat(claims().get(0).getMetadata().getName()).isEqualTo(status.getResourceClaimName());
    } finally {
      tessera.deleteScenarioAndWaitForUnprepare("09-gpu-as-extended-resource");
      deviceClass.forEach(item -> tessera.client().resource(item).delete());
    }
  }

  private static PodCondition condition(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()))
        .findFirst()
        .orElse(null);
  }
}
