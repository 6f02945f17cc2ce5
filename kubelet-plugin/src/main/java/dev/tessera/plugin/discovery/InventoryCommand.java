package dev.tessera.plugin.discovery;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.nvml.JnaNvml;
import java.io.PrintStream;
import java.nio.file.Path;
import tools.jackson.databind.json.JsonMapper;

/** {@code inventory}: loads NVML from a driver root and prints what discovery finds, as JSON. */
public final class InventoryCommand {
  private final JsonMapper json;

  public InventoryCommand() {
    this(JsonMapper.builder().build());
  }

  public InventoryCommand(JsonMapper json) {
    this.json = json;
  }

  /** Prints the inventory to {@code out}; NVML is shut down again before this returns. */
  public NodeInventory run(Path driverRoot, PrintStream out) {
    NodeInventory inventory;
    try (JnaNvml nvml = JnaNvml.open(driverRoot)) {
      inventory = GpuDiscovery.onNode(nvml, driverRoot).discover();
    }
    out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(inventory));
    out.flush();
    return inventory;
  }
}
