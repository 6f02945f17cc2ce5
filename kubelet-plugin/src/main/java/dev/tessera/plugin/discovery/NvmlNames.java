package dev.tessera.plugin.discovery;

import dev.tessera.api.inventory.MigMode;
import dev.tessera.plugin.nvml.MigModeState;
import java.util.Map;
import java.util.Optional;

/** How NVML's numbers read as the inventory's words, the way {@code nvidia-smi} prints them. */
public final class NvmlNames {
  private static final Map<Integer, String> ARCHITECTURES =
      Map.ofEntries(
          Map.entry(2, "Kepler"),
          Map.entry(3, "Maxwell"),
          Map.entry(4, "Pascal"),
          Map.entry(5, "Volta"),
          Map.entry(6, "Turing"),
          Map.entry(7, "Ampere"),
          Map.entry(8, "Ada Lovelace"),
          Map.entry(9, "Hopper"),
          Map.entry(10, "Blackwell"),
          Map.entry(13, "Rubin"));

  private static final Map<Integer, String> BRANDS =
      Map.ofEntries(
          Map.entry(0, "Unknown"),
          Map.entry(1, "Quadro"),
          Map.entry(2, "Tesla"),
          Map.entry(3, "NVS"),
          Map.entry(4, "Grid"),
          Map.entry(5, "GeForce"),
          Map.entry(6, "Titan"),
          Map.entry(7, "NVIDIA Virtual Applications"),
          Map.entry(8, "NVIDIA Virtual PC"),
          Map.entry(9, "NVIDIA Virtual Compute Server"),
          Map.entry(10, "NVIDIA RTX Virtual Workstation"),
          Map.entry(11, "NVIDIA Cloud Gaming"),
          Map.entry(12, "Quadro RTX"),
          Map.entry(13, "NVIDIA RTX"),
          Map.entry(14, "NVIDIA"),
          Map.entry(15, "GeForce RTX"),
          Map.entry(16, "Titan RTX"));

  private static final String MIG_PREFIX = "MIG ";

  private NvmlNames() {}

  /** {@code NVML_DEVICE_ARCH_*} to its name, e.g. 9 to {@code Hopper}. */
  static String architecture(int arch) {
    return ARCHITECTURES.getOrDefault(arch, "Unknown");
  }

  /** {@code nvmlBrandType_t} to its name, e.g. 14 to {@code NVIDIA}. */
  static String brand(int brand) {
    return BRANDS.getOrDefault(brand, "Unknown");
  }

  /** NVML's CUDA driver version number as {@code major.minor}: 13000 to {@code 13.0}. */
  static String cudaVersion(int version) {
    return version / 1000 + "." + (version % 1000) / 10;
  }

  /** A profile name without NVML's {@code MIG } prefix: {@code MIG 1g.10gb} to {@code 1g.10gb}. */
  static String migProfile(String nvmlName) {
    String name = nvmlName.strip();
    return name.startsWith(MIG_PREFIX) ? name.substring(MIG_PREFIX.length()).strip() : name;
  }

  public static MigMode migMode(Optional<MigModeState> state) {
    if (state.isEmpty()) {
      return MigMode.UNSUPPORTED;
    }
    boolean current = state.get().currentEnabled();
    boolean pending = state.get().pendingEnabled();
    if (current == pending) {
      return current ? MigMode.ENABLED : MigMode.DISABLED;
    }
    return pending ? MigMode.ENABLE_PENDING_RESET : MigMode.DISABLE_PENDING_RESET;
  }
}
