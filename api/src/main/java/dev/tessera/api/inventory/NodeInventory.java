package dev.tessera.api.inventory;

import java.util.List;
import java.util.Optional;

/**
 * What the node plugin discovered through NVML: the driver's versions and every GPU with its MIG
 * state. A plain value; the controller renders ResourceSlices from it.
 *
 * @param driverVersion the kernel driver version, e.g. {@code 580.95.05}
 * @param cudaDriverVersion the CUDA version the driver supports, e.g. {@code 13.0}
 * @param nvmlVersion NVML's own version string
 */
public record NodeInventory(
    String driverVersion, String cudaDriverVersion, String nvmlVersion, List<Gpu> gpus) {
  public NodeInventory {
    gpus = List.copyOf(gpus);
  }

  public Optional<Gpu> gpuByMinor(int minor) {
    return gpus.stream().filter(g -> g.minor() == minor).findFirst();
  }
}
