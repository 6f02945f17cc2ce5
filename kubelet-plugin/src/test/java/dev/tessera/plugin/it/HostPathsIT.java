package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tessera's two ways of reading a node: a driver root (a simulated one, or the host's driver at
 * {@code /run/nvidia/driver}) and the host paths with driver root {@code /}. The plugin's {@code
 * inventory} runs once with the simulated root as its driver root, and once with {@code /} inside
 * mock-nvml-hostpaths' mount namespace, where that root is seen at the host paths (NVML through
 * {@code LD_LIBRARY_PATH}, sysfs at {@code /sys}); both find the same GPUs. The second needs root
 * and mount namespaces, and is skipped without them.
 */
class HostPathsIT {
  private static final int SKIP = 77;

  @TempDir Path dir;
  private final JsonMapper json = JsonMapper.builder().build();

  @Test
  void driverRootAndHostPathsDiscoverTheSameGpus() throws Exception {
    Path root =
        SimulatedNode.layOut(
            dir.resolve("root"), "H100-SXM5-80GB", 2, "--mig-enabled", "1", "--mig", "1:9@4");
    assertThat(KillablePlugin.JAR).as("the shaded plugin jar (built at package)").exists();

    Run viaRoot = inventory(List.of(), root.toString());
    assertThat(viaRoot.exit()).as(viaRoot.output()).isZero();
    Path hostPaths = SimulatedNode.simulatorDir().resolve("mock-nvml-hostpaths");
    Run viaHost = inventory(List.of(hostPaths.toString(), "--root", root.toString(), "--"), "/");
    assumeTrue(viaHost.exit() != SKIP, "no mount namespace here: " + viaHost.output());
    assertThat(viaHost.exit()).as(viaHost.output()).isZero();

    JsonNode gpus = json.readTree(viaRoot.output()).get("gpus");
    assertThat(gpus).hasSize(2);
    assertThat(gpus.get(0).get("uuid").asString()).startsWith("GPU-");
    assertThat(gpus.get(0).get("pcieRoot").asString()).isEqualTo("pci0000:00");
    assertThat(gpus.get(1).get("pcieRoot").asString()).isEqualTo("pci0000:20");
    assertThat(gpus.get(0).get("numaNode").asInt()).isZero();
    assertThat(gpus.get(1).get("numaNode").asInt()).isEqualTo(1);
    assertThat(gpus.get(1).get("migDevices")).hasSize(1);
    // The whole inventory, UUIDs, NUMA, PCIe roots and MIG devices included, is the same both ways.
    assertThat(json.readTree(viaHost.output())).isEqualTo(json.readTree(viaRoot.output()));
  }

  private record Run(int exit, String output) {}

  /** {@code inventory --driver-root DRIVER_ROOT} from the shaded jar, behind {@code prefix}. */
  private Run inventory(List<String> prefix, String driverRoot)
      throws IOException, InterruptedException {
    var command = new ArrayList<>(prefix);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of("-jar", KillablePlugin.JAR.toString(), "inventory", "--driver-root", driverRoot));
    Process process =
        new ProcessBuilder(command).redirectError(dir.resolve("stderr").toFile()).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("inventory did not finish: " + command);
    }
    return new Run(process.exitValue(), out);
  }
}
