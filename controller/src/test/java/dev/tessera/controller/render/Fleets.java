package dev.tessera.controller.render;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.NodeInventory;
import java.util.List;
import java.util.Locale;

/** Fleets for the controller's benchmarks: one simulated node's inventory, copied per node. */
public final class Fleets {
  private Fleets() {}

  /**
   * The template node with GPU UUIDs of its own (node {@code n}), as a real fleet has: rendering
   * must not share work across nodes.
   */
  public static NodeInventory withOwnUuids(NodeInventory template, int n) {
    String prefix = String.format(Locale.ROOT, "GPU-%08x", n);
    List<Gpu> gpus =
        template.gpus().stream()
            .map(
                g ->
                    new Gpu(
                        g.index(),
                        g.minor(),
                        prefix + g.uuid().substring(prefix.length()),
                        g.productName(),
                        g.brand(),
                        g.architecture(),
                        g.cudaComputeCapability(),
                        g.memoryBytes(),
                        g.pciBusId(),
                        g.pcieRoot(),
                        g.numaNode(),
                        g.migMode(),
                        g.migDevices(),
                        g.migProfiles()))
            .toList();
    return new NodeInventory(
        template.driverVersion(), template.cudaDriverVersion(), template.nvmlVersion(), gpus);
  }
}
