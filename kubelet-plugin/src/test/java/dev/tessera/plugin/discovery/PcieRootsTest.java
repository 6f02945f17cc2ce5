package dev.tessera.plugin.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcieRootsTest {
  @TempDir Path sys;

  private void device(String root, String bridge, String bdf) throws Exception {
    Path dir = Files.createDirectories(sys.resolve("devices").resolve(root).resolve(bridge));
    Files.createDirectories(dir.resolve(bdf));
    Files.createDirectories(sys.resolve("bus/pci/devices"));
    Files.createSymbolicLink(
        sys.resolve("bus/pci/devices").resolve(bdf),
        Path.of("../../../devices").resolve(root).resolve(bridge).resolve(bdf));
  }

  @Test
  void theRootComplexIsTheFirstComponentOfTheDevicesSysfsPath() throws Exception {
    device("pci0000:17", "0000:17:00.0/0000:18:00.0", "0000:1b:00.0");

    assertThat(new PcieRoots(sys).apply("00000000:1B:00.0")).hasValue("pci0000:17");
  }

  @Test
  void aDomainAbove0xffffKeepsAllItsDigits() throws Exception {
    device("pci10000:00", "10000:00:02.0", "10000:01:00.0");

    assertThat(new PcieRoots(sys).apply("00010000:01:00.0")).hasValue("pci10000:00");
  }

  @Test
  void unknownDevicesAndMalformedBusIdsHaveNoRoot() throws Exception {
    device("pci0000:17", "0000:17:00.0", "0000:1b:00.0");

    assertThat(new PcieRoots(sys).apply("00000000:2A:00.0")).isEmpty();
    assertThat(new PcieRoots(sys).apply("not-a-bus-id")).isEmpty();
  }

  @Test
  void aDriverRootWithoutItsOwnSysfsUsesTheHosts(@TempDir Path driverRoot) {
    assertThat(PcieRoots.forDriverRoot(driverRoot)).extracting("sys").isEqualTo(Path.of("/sys"));
  }
}
