package dev.tessera.controller.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.DeviceAttributeNames;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceFactsTest {
  private static final NodeInventory NODE =
      new NodeInventory("580.95.05", "13.0", "13.580.95.05", List.of());

  private static Gpu gpu(Integer numaNode) {
    return new Gpu(
        0,
        0,
        "GPU-0",
        "NVIDIA H100 80GB HBM3",
        "NVIDIA",
        "Hopper",
        "9.0",
        80L << 30,
        "00000000:18:00.0",
        "pci0000:00",
        numaNode,
        MigMode.DISABLED,
        List.of(),
        List.of());
  }

  @Test
  void numaNodeIsPublishedUnderTheStandardNameAndTheLegacyOne() {
    var attributes = DeviceFacts.gpuAttributes(NODE, gpu(1));
    assertThat(DeviceAttributeNames.NUMA_NODE).isEqualTo("resource.kubernetes.io/numaNode");
    assertThat(attributes.get("resource.kubernetes.io/numaNode").getInt()).isEqualTo(1L);
    assertThat(attributes.get("numaNode").getInt()).isEqualTo(1L);
    assertThat(attributes.get("resource.kubernetes.io/numaNode").getString()).isNull();
  }

  @Test
  void aMigDeviceCarriesItsParentsNumaNode() {
    var attributes = DeviceFacts.migAttributes(NODE, gpu(0), "3g.40gb");
    assertThat(attributes.get("resource.kubernetes.io/numaNode").getInt()).isZero();
    assertThat(attributes.get("numaNode").getInt()).isZero();
  }

  @Test
  void noNumaAttributeWhereThePlatformDoesNotSayOne() {
    var attributes = DeviceFacts.gpuAttributes(NODE, gpu(null));
    assertThat(attributes).doesNotContainKeys("resource.kubernetes.io/numaNode", "numaNode");
  }
}
