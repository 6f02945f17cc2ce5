package dev.tessera.api.inventory;

import java.util.List;
import java.util.Optional;

/**
 * One physical GPU.
 *
 * @param index NVML's enumeration index (may change across reboots; not used in names)
 * @param minor the {@code /dev/nvidia<minor>} number (stable; used in device names)
 * @param cudaComputeCapability {@code major.minor}, e.g. {@code 9.0}
 * @param pciBusId NVML's bus ID, e.g. {@code 00000000:1B:00.0}
 * @param pcieRoot the PCIe root complex from sysfs, e.g. {@code pci0000:00}, or {@code null}
 * @param numaNode the NUMA node, or {@code null} where the platform does not say
 * @param migProfiles the GPU-instance profiles this GPU supports, empty when MIG is unsupported
 */
public record Gpu(
    int index,
    int minor,
    String uuid,
    String productName,
    String brand,
    String architecture,
    String cudaComputeCapability,
    long memoryBytes,
    String pciBusId,
    String pcieRoot,
    Integer numaNode,
    MigMode migMode,
    List<MigDevice> migDevices,
    List<MigProfile> migProfiles) {
  public Gpu {
    migDevices = List.copyOf(migDevices);
    migProfiles = List.copyOf(migProfiles);
  }

  /** This GPU with another MIG profile table (shared tables, tests of odd ones). */
  public Gpu withMigProfiles(List<MigProfile> profiles) {
    return new Gpu(
        index,
        minor,
        uuid,
        productName,
        brand,
        architecture,
        cudaComputeCapability,
        memoryBytes,
        pciBusId,
        pcieRoot,
        numaNode,
        migMode,
        migDevices,
        profiles);
  }

  public Optional<MigProfile> migProfile(int profileId) {
    return migProfiles.stream().filter(p -> p.profileId() == profileId).findFirst();
  }
}
