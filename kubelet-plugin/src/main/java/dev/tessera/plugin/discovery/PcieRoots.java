package dev.tessera.plugin.discovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Finds the PCIe root complex of a PCI device in sysfs: {@code /sys/bus/pci/devices/<bdf>} links to
 * {@code /sys/devices/pci<domain>:<bus>/…/<bdf>}, and that first component is the root. The
 * scheduler matches it ({@code resource.kubernetes.io/pcieRoot}) to put a GPU and a NIC under one
 * root. NVML does not know it.
 */
public final class PcieRoots implements Function<String, Optional<String>> {
  private static final Pattern ROOT = Pattern.compile("pci[0-9a-f]{4,8}:[0-9a-f]{2}");
  private static final Pattern NVML_BUS_ID =
      Pattern.compile("([0-9A-Fa-f]{4,8}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\\.([0-7])");

  private final Path sys;

  public PcieRoots(Path sys) {
    this.sys = sys;
  }

  /**
   * The sysfs to read for a driver root: its own {@code sys} when it has a PCI tree (a simulated
   * node lays one out), else the host's {@code /sys}.
   */
  public static PcieRoots forDriverRoot(Path driverRoot) {
    Path own = driverRoot.resolve("sys");
    return new PcieRoots(Files.isDirectory(own.resolve("bus/pci/devices")) ? own : Path.of("/sys"));
  }

  /** The root of an NVML bus ID such as {@code 00000000:1B:00.0}; empty where sysfs has none. */
  @Override
  public Optional<String> apply(String nvmlBusId) {
    var m = NVML_BUS_ID.matcher(nvmlBusId);
    if (!m.matches()) {
      return Optional.empty();
    }
    // sysfs names the domain with at least 4 digits, lower case: 0000:1b:00.0
    long domain = Long.parseLong(m.group(1), 16);
    String bdf =
        String.format(Locale.ROOT, "%04x:%s:%s.%s", domain, m.group(2), m.group(3), m.group(4))
            .toLowerCase(Locale.ROOT);
    try {
      Path device = sys.resolve("bus/pci/devices").resolve(bdf).toRealPath();
      for (Path part : device) {
        if (ROOT.matcher(part.toString()).matches()) {
          return Optional.of(part.toString());
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
