package dev.tessera.plugin.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A fake driver root laid out by the NVML simulator's setup script, for one test. */
public final class SimulatedNode {
  private SimulatedNode() {}

  /** The simulator's directory (hack/mock-nvml), as the build passes it. */
  public static Path simulatorDir() {
    String dir = System.getProperty("tessera.mockNvml.dir");
    if (dir == null) {
      throw new IllegalStateException("system property tessera.mockNvml.dir is not set");
    }
    return Path.of(dir).toAbsolutePath().normalize();
  }

  /**
   * Lays out a driver root under {@code root}.
   *
   * @param extraArgs more setup flags, e.g. {@code --mig-enabled 1 --mig 1:19@0}
   */
  public static Path layOut(Path root, String profile, int gpus, String... extraArgs)
      throws IOException, InterruptedException {
    Path sim = simulatorDir();
    var command =
        new ArrayList<>(
            List.of(
                sim.resolve("mock-nvml-setup").toString(),
                "--root",
                root.toString(),
                "--profile",
                profile,
                "--gpus",
                Integer.toString(gpus),
                "--seed",
                "node-a",
                "--lib",
                sim.resolve("target/libnvidia-ml.so.1").toString()));
    command.addAll(List.of(extraArgs));
    Process setup = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(setup.getInputStream().readAllBytes());
    if (!setup.waitFor(60, TimeUnit.SECONDS) || setup.exitValue() != 0) {
      throw new IOException("mock-nvml-setup failed: " + output);
    }
    if (!Files.exists(root.resolve("etc/mock-nvml/config"))) {
      throw new IOException("mock-nvml-setup left no config in " + root + ": " + output);
    }
    return root;
  }
}
