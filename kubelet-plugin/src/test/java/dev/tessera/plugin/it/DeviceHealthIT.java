package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.kubelet.drahealth.v1alpha1.DeviceHealth;
import dev.tessera.api.kubelet.drahealth.v1alpha1.HealthStatus;
import dev.tessera.api.kubelet.drahealth.v1alpha1.NodeWatchResourcesResponse;
import dev.tessera.plugin.app.KubeletPlugin;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Device health from NVML events to the kubelet's health stream and the GpuNode status: the
 * simulator injects XIDs and ECC errors (H100 x2, GPU 1 in MIG mode with a 3g.40gb device at slice
 * 4, GPU instance 1), the real plugin watches them through the JNA binding.
 */
class DeviceHealthIT {
  private static final Duration RECOVERY = Duration.ofSeconds(3);

  @RegisterExtension
  final SimulatedPlugin node =
      new SimulatedPlugin("H100-SXM5-80GB", 2, "--mig-enabled", "1", "--mig", "1:9@4")
          .withProperty("tessera.health-recovery", RECOVERY.toMillis() + "ms");

  @BeforeEach
  void registered() throws Exception {
    node.plugin().kubelet().notifyRegistration(true, "");
    var registered =
        node.plugin().context().getBean(KubeletPlugin.class).registration().registered();
    await().atMost(Duration.ofSeconds(5)).until(registered::isDone);
  }

  @Test
  void anXidReachesTheHealthStreamAndTheGpuNodeAndClearsAfterTheQuietPeriod() throws Exception {
    BlockingQueue<NodeWatchResourcesResponse> stream = node.plugin().kubelet().watchHealth();
    assertThat(statuses(next(stream)))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "gpu-0", HealthStatus.HEALTHY,
                "gpu-1", HealthStatus.HEALTHY,
                "gpu-1-mig-3g40gb-4", HealthStatus.HEALTHY));

    inject("0 xid 48");

    var unhealthy = awaitStatus(stream, "gpu-0", HealthStatus.UNHEALTHY);
    assertThat(device(unhealthy, "gpu-0").getMessage()).contains("XID 48");
    assertThat(device(unhealthy, "gpu-0").getDevice().getPoolName()).isEqualTo(PluginHarness.NODE);
    assertThat(statuses(unhealthy)).containsEntry("gpu-1", HealthStatus.HEALTHY);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              Map<String, Object> status = gpuNodeStatus();
              assertThat(status).containsEntry("unhealthyDevices", 1);
              assertThat(status.get("health").toString())
                  .contains("device=gpu-0")
                  .contains("key=gpu.tessera.dev/xid")
                  .contains("value=48")
                  .contains("effect=NO_SCHEDULE");
            });

    // Nothing more for the quiet period, and the GPU answers: healthy again, everywhere.
    awaitStatus(stream, "gpu-0", HealthStatus.HEALTHY);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(gpuNodeStatus()).containsEntry("unhealthyDevices", 0));
  }

  @Test
  void aMigAttributedErrorTaintsOnlyThatMigDeviceAndAnApplicationXidNothing() throws Exception {
    BlockingQueue<NodeWatchResourcesResponse> stream = node.plugin().kubelet().watchHealth();
    next(stream);

    inject("1 dbe 0 2 0"); // GI 2: the 4-slice instance at slice 4
    inject("0 xid 13");

    var update = awaitStatus(stream, "gpu-1-mig-3g40gb-4", HealthStatus.UNHEALTHY);
    assertThat(statuses(update))
        .containsEntry("gpu-1", HealthStatus.HEALTHY)
        .containsEntry("gpu-0", HealthStatus.HEALTHY);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              Map<String, Object> status = gpuNodeStatus();
              assertThat(status).containsEntry("unhealthyDevices", 1);
              assertThat(status.get("health").toString())
                  .contains("device=gpu-1-mig-3g40gb-4")
                  .contains("key=gpu.tessera.dev/ecc")
                  .contains("value=13")
                  .contains("effect=NONE");
            });
  }

  private void inject(String line) throws Exception {
    Path events = node.root().resolve("var/lib/mock-nvml/events");
    Files.createDirectories(events.getParent());
    Files.writeString(events, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> gpuNodeStatus() {
    var gpuNode =
        node.api()
            .client()
            .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
            .withName(PluginHarness.NODE)
            .get();
    assertThat(gpuNode).isNotNull();
    return (Map<String, Object>) gpuNode.getAdditionalProperties().get("status");
  }

  private static NodeWatchResourcesResponse next(BlockingQueue<NodeWatchResourcesResponse> stream)
      throws InterruptedException {
    var response = stream.poll(10, TimeUnit.SECONDS);
    assertThat(response).as("a health stream response").isNotNull();
    return response;
  }

  private static NodeWatchResourcesResponse awaitStatus(
      BlockingQueue<NodeWatchResourcesResponse> stream, String device, HealthStatus wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      var response = stream.poll(1, TimeUnit.SECONDS);
      if (response != null && statuses(response).get(device) == wanted) {
        return response;
      }
    }
    throw new AssertionError(device + " never became " + wanted + " on the health stream");
  }

  private static DeviceHealth device(NodeWatchResourcesResponse response, String name) {
    return response.getDevicesList().stream()
        .filter(d -> d.getDevice().getDeviceName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static Map<String, HealthStatus> statuses(NodeWatchResourcesResponse response) {
    List<DeviceHealth> devices = response.getDevicesList();
    return devices.stream()
        .collect(Collectors.toMap(d -> d.getDevice().getDeviceName(), DeviceHealth::getHealth));
  }
}
