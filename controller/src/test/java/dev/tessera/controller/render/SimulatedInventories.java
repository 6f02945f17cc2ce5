package dev.tessera.controller.render;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import dev.tessera.plugin.nvml.JnaNvml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Inventories of simulated nodes, read through the plugin's own NVML binding and discovery; each
 * node laid out once per test JVM (its driver root removed when the JVM exits). GPU 0 of
 * MIG-capable profiles is in MIG mode with a 3g device at slice 4 and a 1g device at slice 0.
 */
public final class SimulatedInventories {
  private static final Map<String, NodeInventory> NODES = new HashMap<>();
  private static Path roots;

  private SimulatedInventories() {}

  public static synchronized NodeInventory node(String profile, int gpus) throws Exception {
    String key = profile + "x" + gpus;
    if (!NODES.containsKey(key)) {
      Path root = roots().resolve(key);
      Files.createDirectories(root);
      String[] mig = profile.equals("L40S") ? new String[0] : new String[] {"--mig", "0:9@4,19@0"};
      SimulatedNode.layOut(root, profile, gpus, mig);
      try (var nvml = JnaNvml.open(root)) {
        NODES.put(key, GpuDiscovery.onNode(nvml, root).discover());
      }
    }
    return NODES.get(key);
  }

  private static Path roots() throws IOException {
    if (roots == null) {
      Path dir = Files.createTempDirectory("tessera-inventories");
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      TestFiles.deleteTree(dir);
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  }));
      roots = dir;
    }
    return roots;
  }
}
