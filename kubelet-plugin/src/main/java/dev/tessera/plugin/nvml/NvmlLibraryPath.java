package dev.tessera.plugin.nvml;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Where {@code libnvidia-ml.so.1} lives under a driver root. */
public final class NvmlLibraryPath {
  public static final String SONAME = "libnvidia-ml.so.1";

  /** Searched in this order, relative to the driver root. */
  static final List<String> CANDIDATES =
      List.of(
          "usr/lib/x86_64-linux-gnu/" + SONAME,
          "usr/lib64/" + SONAME,
          "lib/x86_64-linux-gnu/" + SONAME,
          "lib64/" + SONAME);

  private NvmlLibraryPath() {}

  /**
   * The absolute path of the library under {@code driverRoot}. For the root {@code /} where none of
   * the usual places has it, the bare soname, so the dynamic loader searches its own paths.
   *
   * @throws NvmlException {@code NVML_ERROR_LIBRARY_NOT_FOUND} when a non-root driver root lacks it
   */
  public static String resolve(Path driverRoot) {
    Path root = driverRoot.toAbsolutePath().normalize();
    for (String candidate : CANDIDATES) {
      Path path = root.resolve(candidate);
      if (Files.exists(path)) {
        return path.toString();
      }
    }
    if (root.getParent() == null) {
      return SONAME;
    }
    throw new NvmlException(
        "dlopen",
        NvmlReturn.NVML_ERROR_LIBRARY_NOT_FOUND.code(),
        "no " + SONAME + " under " + root + " (looked in " + String.join(", ", CANDIDATES) + ")");
  }
}
