package dev.tessera.plugin;

import dev.tessera.plugin.discovery.InventoryCommand;
import dev.tessera.plugin.nvml.NvmlException;
import java.io.PrintStream;
import java.nio.file.Path;

/** {@code inventory}: prints what NVML reports on this node as JSON; works without a cluster. */
final class InventoryMain {
  private InventoryMain() {}

  static int run(String driverRoot, PrintStream out, PrintStream err) {
    try {
      new InventoryCommand().run(Path.of(driverRoot), out);
      return 0;
    } catch (NvmlException | IllegalStateException e) {
      err.println("tessera: cannot read the GPUs: " + e.getMessage());
      return 1;
    }
  }
}
