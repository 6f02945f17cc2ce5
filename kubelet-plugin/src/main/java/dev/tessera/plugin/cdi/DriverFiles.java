package dev.tessera.plugin.cdi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Finds the driver's user-space files under the driver root that a CUDA container needs: the
 * libraries (with their soname links) and the tools. Read once at start-up: they only change when
 * the driver is reinstalled, which restarts the plugin anyway.
 */
public final class DriverFiles {
  private static final List<String> LIBRARY_PREFIXES =
      List.of(
          "libnvidia-ml.so.",
          "libcuda.so.",
          "libcudadebugger.so.",
          "libnvidia-ptxjitcompiler.so.",
          "libnvidia-nvvm.so.",
          "libnvidia-gpucomp.so.",
          "libnvidia-allocator.so.",
          "libnvidia-cfg.so.",
          "libnvidia-opencl.so.");
  private static final List<String> BINARIES =
      List.of(
          "nvidia-smi",
          "nvidia-debugdump",
          "nvidia-persistenced",
          "nvidia-cuda-mps-control",
          "nvidia-cuda-mps-server");
  private static final List<String> MOUNT_OPTIONS = List.of("ro", "nosuid", "nodev", "rbind");

  private DriverFiles() {}

  /**
   * Read-only bind mounts of every driver file found: from its path on the host, to its path
   * relative to the driver root inside the container.
   */
  public static List<CdiSpec.Mount> discover(DriverRoot root) {
    Path driverRoot = root.inPlugin();
    var mounts = new ArrayList<CdiSpec.Mount>();
    for (String dir : DriverRoot.LIBRARY_DIRS) {
      Path libDir = driverRoot.resolve(dir);
      if (!Files.isDirectory(libDir)) {
        continue;
      }
      try (Stream<Path> files = Files.list(libDir)) {
        files
            .filter(
                f ->
                    LIBRARY_PREFIXES.stream()
                        .anyMatch(p -> f.getFileName().toString().startsWith(p)))
            .filter(Files::exists)
            .sorted()
            .forEach(f -> mounts.add(mount(root, f)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list driver libraries in " + libDir, e);
      }
    }
    for (String binary : BINARIES) {
      Path file = driverRoot.resolve("usr/bin").resolve(binary);
      if (Files.isRegularFile(file)) {
        mounts.add(mount(root, file));
      }
    }
    return List.copyOf(mounts);
  }

  /** The host's path of the file, so the container runtime finds it; at / in the container. */
  private static CdiSpec.Mount mount(DriverRoot root, Path file) {
    return new CdiSpec.Mount(root.onHost(file).toString(), root.inContainer(file), MOUNT_OPTIONS);
  }
}
