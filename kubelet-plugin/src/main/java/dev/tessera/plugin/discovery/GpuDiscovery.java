package dev.tessera.plugin.discovery;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Reads the node's {@link NodeInventory} through an {@link Nvml}: pure logic over the port, no
 * other I/O. An NVML failure on any GPU fails the whole discovery with its {@code NvmlException}.
 */
public final class GpuDiscovery {
  private final Nvml nvml;
  private final MigDiscovery mig;
  private final Function<String, Optional<String>> pcieRootOfBusId;

  /** Without PCIe roots (where no sysfs describes the GPUs). */
  public GpuDiscovery(Nvml nvml) {
    this(nvml, busId -> Optional.empty());
  }

  /**
   * @param pcieRootOfBusId the PCIe root of an NVML bus ID (see {@link PcieRoots}), empty if
   *     unknown
   */
  public GpuDiscovery(Nvml nvml, Function<String, Optional<String>> pcieRootOfBusId) {
    this.nvml = nvml;
    this.mig = new MigDiscovery(nvml);
    this.pcieRootOfBusId = pcieRootOfBusId;
  }

  /** Discovery on a node: PCIe roots from the driver root's sysfs, else the host's. */
  public static GpuDiscovery onNode(Nvml nvml, Path driverRoot) {
    return new GpuDiscovery(nvml, PcieRoots.forDriverRoot(driverRoot));
  }

  public NodeInventory discover() {
    List<Gpu> gpus = IntStream.range(0, nvml.deviceCount()).mapToObj(this::gpu).toList();
    return new NodeInventory(
        nvml.driverVersion(),
        NvmlNames.cudaVersion(nvml.cudaDriverVersion()),
        nvml.nvmlVersion(),
        gpus);
  }

  private Gpu gpu(int index) {
    Device device = nvml.deviceByIndex(index);
    MigMode migMode = NvmlNames.migMode(nvml.migMode(device));
    List<MigProfile> profiles = migMode == MigMode.UNSUPPORTED ? List.of() : mig.profiles(device);
    List<MigDevice> migDevices = migActive(migMode) ? mig.devices(device, profiles) : List.of();
    OptionalInt numa = nvml.numaNode(device);
    String busId = nvml.pciBusId(device);
    return new Gpu(
        index,
        nvml.minorNumber(device),
        nvml.uuid(device),
        nvml.name(device),
        NvmlNames.brand(nvml.brand(device)),
        NvmlNames.architecture(nvml.architecture(device)),
        nvml.cudaComputeCapability(device).toString(),
        nvml.memoryInfo(device).total(),
        busId,
        pcieRootOfBusId.apply(busId).orElse(null),
        numa.isPresent() ? numa.getAsInt() : null,
        migMode,
        migDevices,
        profiles);
  }

  /** Whether MIG is in effect now (a pending disable still has MIG devices until the reset). */
  private static boolean migActive(MigMode mode) {
    return mode == MigMode.ENABLED || mode == MigMode.DISABLE_PENDING_RESET;
  }
}
