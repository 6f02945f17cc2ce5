package dev.tessera.plugin.cdi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the driver's device nodes and its /proc files are on the host. With the driver installed on
 * the host both live under /; with a containerized driver (driver root such as /run/nvidia/driver)
 * or the simulator's fake root they may live under the driver root instead.
 */
public final class NodePaths {
  private static final Pattern DEVICE_FILE_MINOR = Pattern.compile("DeviceFileMinor:\\s*(\\d+)");
  private final DriverRoot devRoot;
  private final Path procRoot;

  /**
   * @param devRoot the root whose {@code dev/} holds the device nodes, in the plugin and on the
   *     host
   * @param procRoot the root whose {@code proc/driver/nvidia} the plugin reads
   */
  public NodePaths(DriverRoot devRoot, Path procRoot) {
    this.devRoot = devRoot;
    this.procRoot = procRoot;
  }

  /**
   * Device nodes under the driver root if it has them, else under /; the same for /proc. The
   * plugin's / is the host's for these: a DaemonSet mounts the host's /dev at /dev.
   */
  public static NodePaths forDriverRoot(DriverRoot driverRoot) {
    Path inPlugin = driverRoot.inPlugin();
    DriverRoot dev =
        Files.exists(inPlugin.resolve("dev/nvidiactl")) ? driverRoot : DriverRoot.at(Path.of("/"));
    Path proc = Files.isDirectory(inPlugin.resolve("proc/driver/nvidia")) ? inPlugin : Path.of("/");
    return new NodePaths(dev, proc);
  }

  /** A device node by its path in the container, e.g. {@code /dev/nvidia0}. */
  public CdiSpec.DeviceNode deviceNode(String containerPath) {
    Path host = devRoot.onHost().resolve(containerPath.substring(1));
    return new CdiSpec.DeviceNode(
        containerPath, host.toString().equals(containerPath) ? null : host.toString());
  }

  public boolean exists(String containerPath) {
    return Files.exists(devRoot.inPlugin().resolve(containerPath.substring(1)));
  }

  /**
   * The {@code /dev/nvidia-caps/nvidia-cap<N>} node that grants access to a MIG GPU instance (or,
   * with a compute instance id, to that compute instance), as the driver announces it under
   * /proc/driver/nvidia/capabilities.
   */
  public Optional<String> migCapabilityNode(int gpuMinor, int gpuInstanceId, Integer computeId) {
    return capabilityNode(
        "driver/nvidia/capabilities/gpu"
            + gpuMinor
            + "/mig/gi"
            + gpuInstanceId
            + (computeId == null ? "" : "/ci" + computeId)
            + "/access");
  }

  /**
   * The node that grants the driver's MIG monitoring capability ({@code
   * /proc/driver/nvidia/capabilities/mig/monitor}): with it NVML lists every MIG device of every
   * GPU the container sees, read-only. One node for the whole driver, not per GPU.
   */
  public Optional<String> migMonitorCapabilityNode() {
    return capabilityNode("driver/nvidia/capabilities/mig/monitor");
  }

  private Optional<String> capabilityNode(String procFile) {
    Path file = procRoot.resolve("proc").resolve(procFile);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      Matcher m = DEVICE_FILE_MINOR.matcher(Files.readString(file));
      return m.find() ? Optional.of("/dev/nvidia-caps/nvidia-cap" + m.group(1)) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
