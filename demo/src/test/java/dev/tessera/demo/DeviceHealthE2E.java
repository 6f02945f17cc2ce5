package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.health.HealthTaintKeys;
import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Device health end to end: the simulated NVML reports XIDs, the node plugin reports them in its
 * GpuNode, the controller taints the devices in the real API server (which accepts the taints), the
 * real scheduler keeps claims off a NoSchedule device, and the taint goes once the GPU has been
 * quiet for the plugin's recovery period (10 s here).
 */
@ExtendWith(TesseraLogsOnFailure.class)
class DeviceHealthE2E {
  private static final String SCENARIO = "12-unhealthy-gpu-avoided";
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 2, Offering.EXCLUSIVE);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
      tessera.close();
    }
  }

  @Test
  @Scenario("12-unhealthy-gpu-avoided")
  void aTaintedGpuIsNotAllocatedUntilItRecovers() throws Exception {
    await().atMost(Duration.ofSeconds(30)).until(() -> device("gpu-0").isPresent());

    tessera.injectNvmlEvent("0 xid 48");
    tessera.injectNvmlEvent("1 xid 13");
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(taints("gpu-0"))
                  .extracting(DeviceTaint::getKey, DeviceTaint::getValue, DeviceTaint::getEffect)
                  .containsExactly(tuple(HealthTaintKeys.XID, "48", "NoSchedule"));
              assertThat(taints("gpu-1"))
                  .extracting(DeviceTaint::getKey, DeviceTaint::getValue, DeviceTaint::getEffect)
                  .containsExactly(tuple(HealthTaintKeys.XID, "13", "None"));
            });
    long tainted = System.nanoTime();

    // The pod needs both GPUs: it cannot be scheduled while gpu-0 is tainted NoSchedule.
    tessera.applyScenario(SCENARIO);
    await()
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(6))
        .until(() -> pod().getSpec().getNodeName() == null);
    assertThat(claimAllocated()).isFalse();

    // Quiet for the recovery period, and the GPU answers: the taints go and the pod runs.
    await()
        .atMost(Duration.ofSeconds(40))
        .untilAsserted(
            () -> {
              assertThat(taints("gpu-0")).isEmpty();
              assertThat(taints("gpu-1")).isEmpty();
            });
    System.out.printf(
        "--- taints cleared %d ms after they were published%n",
        Duration.ofNanos(System.nanoTime() - tainted).toMillis());
    String saw = tessera.saw("both-gpus-pod", null);
    assertThat(TesseraOnNode.gpus(saw)).containsExactlyInAnyOrder("0", "1");

    // The running pod's GPU fails: the kubelet hears it on the plugin's health stream and shows
    // it in the container's status.
    tessera.injectNvmlEvent("0 xid 79");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(allocatedResourceHealth())
                    .as("allocatedResourcesStatus of the pod's container")
                    .contains("Unhealthy"));
    tessera.printClaims(); // the scenario is deleted after the class, so show its claim now
  }

  /** Every resource health the kubelet reports in the pod's container statuses. */
  private static List<String> allocatedResourceHealth() {
    var statuses = pod().getStatus().getContainerStatuses();
    if (statuses == null) {
      return List.of();
    }
    return statuses.stream()
        .filter(c -> c.getAllocatedResourcesStatus() != null)
        .flatMap(c -> c.getAllocatedResourcesStatus().stream())
        .filter(r -> r.getResources() != null)
        .flatMap(r -> r.getResources().stream())
        .map(r -> r.getHealth())
        .toList();
  }

  private static Pod pod() {
    return tessera.client().pods().inNamespace("default").withName("both-gpus-pod").get();
  }

  private static boolean claimAllocated() {
    return tessera.claims().stream()
        .anyMatch(c -> c.getStatus() != null && c.getStatus().getAllocation() != null);
  }

  private static Optional<Device> device(String name) {
    return tessera.slices().stream()
        .flatMap(s -> s.getSpec().getDevices().stream())
        .filter(d -> d.getName().equals(name))
        .findFirst();
  }

  private static List<DeviceTaint> taints(String name) {
    List<DeviceTaint> taints = device(name).orElseThrow().getTaints();
    return taints == null ? List.of() : taints;
  }
}
