package dev.tessera.plugin.cdi;

import java.nio.file.Path;
import java.util.List;

/**
 * Where the NVIDIA driver's files are, seen two ways: by the plugin ({@code inPlugin}, where it
 * reads and loads them) and by the host's container runtime ({@code onHost}, what CDI specs must
 * name). In a DaemonSet the two differ: a driver installed on the host ({@code /}) cannot be
 * mounted at {@code /} in the plugin's container, so it sits at e.g. {@code /driver-root} there.
 *
 * @param inPlugin the driver root in the plugin's file system
 * @param onHost the same directory in the host's file system
 */
public record DriverRoot(Path inPlugin, Path onHost) {
  /** Where a driver root keeps its libraries (Debian multiarch, RHEL lib64), relative to it. */
  public static final List<String> LIBRARY_DIRS =
      List.of("usr/lib/x86_64-linux-gnu", "usr/lib64", "lib/x86_64-linux-gnu", "lib64");

  public DriverRoot {
    inPlugin = inPlugin.toAbsolutePath().normalize();
    onHost = onHost.toAbsolutePath().normalize();
  }

  /** A driver root the plugin sees where the host does (a host process, or mounted at its path). */
  public static DriverRoot at(Path path) {
    return new DriverRoot(path, path);
  }

  /** The host's path of a file the plugin sees under {@link #inPlugin()}. */
  public Path onHost(Path fileInPlugin) {
    Path file = fileInPlugin.toAbsolutePath().normalize();
    if (!file.startsWith(inPlugin)) {
      throw new IllegalArgumentException(file + " is not under the driver root " + inPlugin);
    }
    return onHost.resolve(inPlugin.relativize(file));
  }

  /** The path a file under the driver root has inside a workload container: from the root /. */
  public String inContainer(Path fileInPlugin) {
    return "/" + inPlugin.relativize(fileInPlugin.toAbsolutePath().normalize());
  }
}
