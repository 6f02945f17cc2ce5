package dev.tessera.plugin.nvml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fake driver root laid out by the simulator's {@code mock-nvml-setup}, found through the system
 * property {@code tessera.mockNvml.dir}.
 */
public record MockNvmlRoot(Path root) {
  public static final String DIR_PROPERTY = "tessera.mockNvml.dir";

  /** Runs {@code mock-nvml-setup --root root <args>}. */
  public static MockNvmlRoot setup(Path root, String... args) {
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir == null || !Files.isExecutable(Path.of(dir, "mock-nvml-setup"))) {
      throw new IllegalStateException(
          "no mock-nvml-setup in " + DIR_PROPERTY + "=" + dir + "; build hack/mock-nvml first");
    }
    List<String> command =
        new ArrayList<>(List.of(dir + "/mock-nvml-setup", "--root", root.toString()));
    command.addAll(List.of(args));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException("mock-nvml-setup failed: " + command + "\n" + output);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return new MockNvmlRoot(root);
  }

  public JnaNvml open() {
    return JnaNvml.open(root);
  }

  /** Appends {@code <symbol> <code> [count]} to the faults file. */
  public void fault(String line) throws IOException {
    append(root.resolve("etc/mock-nvml/faults"), line);
  }

  /** Appends {@code <gpuIndex> xid|dbe|sbe|gpu_lost [data]} to the events file. */
  public void event(String line) throws IOException {
    append(root.resolve("var/lib/mock-nvml/events"), line);
  }

  /**
   * Appends {@code <gpu>[/<gi>/<ci>] <key> <value>} (or {@code ... process|mps_process <pid>
   * <bytes>}) to the telemetry file, which the simulator reads again when it changes.
   */
  public void telemetry(String line) throws IOException {
    append(telemetryFile(), line);
  }

  public Path telemetryFile() {
    return root.resolve("var/lib/mock-nvml/telemetry");
  }

  private static void append(Path file, String line) throws IOException {
    Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
