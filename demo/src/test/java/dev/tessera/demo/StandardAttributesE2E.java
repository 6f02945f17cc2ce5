package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.report.Scenario;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The standard attribute names other drivers (NVIDIA's among them) publish, on a simulated node of
 * 4 H100s offered whole: every device carries {@code resource.kubernetes.io/numaNode} (GPUs 0-1 on
 * node 0, 2-3 on node 1, as the simulated sysfs and NVML say), beside Tessera's legacy {@code
 * numaNode}, and a claim written against the standard name gets the GPUs of that node.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class StandardAttributesE2E {
  private static final String SCENARIO = "21-select-by-numa-node";
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

  @AfterEach
  void deleteScenario() throws Exception {
    tessera.deleteScenarioAndWaitForUnprepare(SCENARIO);
  }

  @Test
  @Scenario("21-select-by-numa-node")
  void devicesCarryTheStandardNumaNodeAndAClaimSelectsByIt() throws Exception {
    Map<String, Device> devices =
        tessera.slices().stream()
            .flatMap(s -> s.getSpec().getDevices().stream())
            .collect(Collectors.toMap(Device::getName, d -> d));
    assertThat(devices).containsOnlyKeys("gpu-0", "gpu-1", "gpu-2", "gpu-3");
    devices.forEach(
        (name, device) -> {
          long want = name.equals("gpu-0") || name.equals("gpu-1") ? 0 : 1;
          var attributes = device.getAttributes();
          assertThat(attributes.get("resource.kubernetes.io/numaNode").getInt())
              .as(name)
              .isEqualTo(want);
          assertThat(attributes.get("numaNode").getInt()).as(name).isEqualTo(want);
        });

    tessera.applyScenario(SCENARIO);
    String saw = tessera.saw("numa-node-pod", null);
    assertThat(TesseraOnNode.gpus(saw)).containsExactlyInAnyOrder("2", "3");
    tessera.assertClaimsReady(1);
    assertThat(tessera.claims().get(0).getStatus().getAllocation().getDevices().getResults())
        .extracting(DeviceRequestAllocationResult::getDevice)
        .containsExactlyInAnyOrder("gpu-2", "gpu-3");
  }
}
