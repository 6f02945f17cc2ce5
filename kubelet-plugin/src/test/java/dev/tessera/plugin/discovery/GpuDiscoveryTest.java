package dev.tessera.plugin.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.nvml.ComputeCapability;
import dev.tessera.plugin.nvml.FakeNvml;
import dev.tessera.plugin.nvml.FakeNvml.FakeGpu;
import dev.tessera.plugin.nvml.GpuInstanceProfileInfo;
import dev.tessera.plugin.nvml.MigModeState;
import dev.tessera.plugin.nvml.NvmlException;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.NvmlHandle.GpuInstance;
import dev.tessera.plugin.nvml.NvmlReturn;
import dev.tessera.plugin.nvml.Placement;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuDiscoveryTest {
  private static final GpuInstanceProfileInfo A100_1G =
      new GpuInstanceProfileInfo(19, false, 1, 7, 14, 1, 0, 0, 0, 0, 4864, "MIG 1g.5gb");
  private static final GpuInstanceProfileInfo A100_3G =
      new GpuInstanceProfileInfo(9, false, 3, 2, 42, 3, 2, 0, 0, 0, 19968, "MIG 3g.20gb");
  private static final GpuInstanceProfileInfo A100_7G =
      new GpuInstanceProfileInfo(0, false, 7, 1, 98, 7, 5, 0, 1, 1, 40192, "MIG 7g.40gb");

  private static FakeGpu a100(int minor) {
    FakeGpu gpu = new FakeGpu(minor);
    gpu.name = "NVIDIA A100-SXM4-40GB";
    gpu.architecture = 7;
    gpu.computeCapability = new ComputeCapability(8, 0);
    gpu.memoryBytes = 40960L << 20;
    gpu.migMode = new MigModeState(true, true);
    return gpu.profile(
            0,
            A100_1G,
            new Placement(0, 1),
            new Placement(1, 1),
            new Placement(2, 1),
            new Placement(3, 1),
            new Placement(4, 1),
            new Placement(5, 1),
            new Placement(6, 1))
        .profile(2, A100_3G, new Placement(0, 4), new Placement(4, 4))
        .profile(4, A100_7G, new Placement(0, 8));
  }

  private static FakeGpu l40s(int minor) {
    FakeGpu gpu = new FakeGpu(minor);
    gpu.name = "NVIDIA L40S";
    gpu.architecture = 8;
    gpu.computeCapability = new ComputeCapability(8, 9);
    gpu.memoryBytes = 46068L << 20;
    gpu.migMode = null;
    return gpu;
  }

  @Test
  void reportsDriverVersionsAndEveryGpuField() {
    FakeNvml nvml = new FakeNvml().versions("580.95.05", 13000).add(l40s(0));

    NodeInventory inventory = new GpuDiscovery(nvml).discover();

    assertThat(inventory.driverVersion()).isEqualTo("580.95.05");
    assertThat(inventory.cudaDriverVersion()).isEqualTo("13.0");
    assertThat(inventory.nvmlVersion()).isEqualTo("13.580.95.05");
    assertThat(inventory.gpus())
        .containsExactly(
            new Gpu(
                0,
                0,
                "GPU-fake-0",
                "NVIDIA L40S",
                "NVIDIA",
                "Ada Lovelace",
                "8.9",
                46068L << 20,
                "00000000:18:00.0",
                null,
                0,
                MigMode.UNSUPPORTED,
                List.of(),
                List.of()));
  }

  @Test
  void formatsCudaVersionsWithAMinor() {
    NodeInventory inventory =
        new GpuDiscovery(new FakeNvml().versions("570.86.15", 12080)).discover();

    assertThat(inventory.cudaDriverVersion()).isEqualTo("12.8");
    assertThat(inventory.gpus()).isEmpty();
  }

  @Test
  void numaNodeIsNullWhereNvmlDoesNotSupportIt() {
    FakeGpu gpu = l40s(3);
    gpu.numaNode = null;

    Gpu found = new GpuDiscovery(new FakeNvml().add(gpu)).discover().gpus().getFirst();

    assertThat(found.numaNode()).isNull();
    assertThat(found.minor()).isEqualTo(3);
  }

  @Test
  void listsMigProfilesWithPlacementsAndNamesWithoutPrefix() {
    Gpu gpu = new GpuDiscovery(new FakeNvml().add(a100(0))).discover().gpus().getFirst();

    assertThat(gpu.migMode()).isEqualTo(MigMode.ENABLED);
    assertThat(gpu.architecture()).isEqualTo("Ampere");
    assertThat(gpu.migProfiles())
        .extracting(MigProfile::name)
        .containsExactly("1g.5gb", "3g.20gb", "7g.40gb");
    assertThat(gpu.migProfile(9))
        .contains(
            new MigProfile(
                9,
                "3g.20gb",
                3,
                2,
                19968L << 20,
                42,
                3,
                2,
                0,
                0,
                0,
                List.of(new MigPlacement(0, 4), new MigPlacement(4, 4))));
    assertThat(gpu.migProfile(19).orElseThrow().placements()).hasSize(7);
    assertThat(gpu.migDevices()).isEmpty();
  }

  @Test
  void reportsExistingMigDevicesWithProfilePlacementAndUuid() {
    FakeNvml nvml = new FakeNvml().add(a100(0));
    Device device = nvml.deviceByIndex(0);
    GpuInstance big = nvml.createGpuInstance(device, 9, new Placement(4, 4));
    nvml.createComputeInstance(big, 2);
    GpuInstance small = nvml.createGpuInstance(device, 19, new Placement(0, 1));
    nvml.createComputeInstance(small, 0);

    Gpu gpu = new GpuDiscovery(nvml).discover().gpus().getFirst();

    assertThat(gpu.migDevices())
        .containsExactly(
            new MigDevice(
                "MIG-fake-0-2-0", 2, 0, 19, "1g.5gb", new MigPlacement(0, 1), 4864L << 20),
            new MigDevice(
                "MIG-fake-0-1-0", 1, 0, 9, "3g.20gb", new MigPlacement(4, 4), 19968L << 20));
  }

  @Test
  void migDevicesAreOnlyReadWhileMigIsInEffect() {
    FakeNvml nvml = new FakeNvml();
    FakeGpu pending = a100(0);
    FakeGpu disabling = a100(1);
    FakeGpu disabled = a100(2);
    nvml.add(pending).add(disabling).add(disabled);
    nvml.createComputeInstance(
        nvml.createGpuInstance(nvml.deviceByIndex(1), 0, new Placement(0, 8)), 6);
    pending.migMode = new MigModeState(false, true);
    disabling.migMode = new MigModeState(true, false);
    disabled.migMode = new MigModeState(false, false);

    List<Gpu> gpus = new GpuDiscovery(nvml).discover().gpus();

    assertThat(gpus)
        .extracting(Gpu::migMode)
        .containsExactly(
            MigMode.ENABLE_PENDING_RESET, MigMode.DISABLE_PENDING_RESET, MigMode.DISABLED);
    assertThat(gpus.get(1).migDevices()).extracting(MigDevice::profile).containsExactly("7g.40gb");
    assertThat(gpus.get(0).migProfiles()).hasSize(3);
  }

  @Test
  void anNvmlFailureFailsDiscoveryWithTheCall() {
    FakeNvml nvml =
        new FakeNvml()
            .add(l40s(0))
            .failNext("nvmlDeviceGetUUID", NvmlReturn.NVML_ERROR_GPU_IS_LOST);

    assertThatThrownBy(() -> new GpuDiscovery(nvml).discover())
        .isInstanceOfSatisfying(
            NvmlException.class,
            e -> {
              assertThat(e.code()).isEqualTo(15);
              assertThat(e.call()).isEqualTo("nvmlDeviceGetUUID");
            });
  }
}
