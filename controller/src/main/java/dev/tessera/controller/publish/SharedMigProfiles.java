package dev.tessera.controller.publish;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One copy of each GPU model's MIG profile table for the whole fleet. Every reported H100 carries
 * the same 7 profiles and 25 placements; parsed per GPU they were most of the controller's heap
 * (5,000 nodes of 8 H100s: 1,000,000 placements and 280,000 profiles, ~45 MB of a ~140 MB live set,
 * issue 13). Equal tables are replaced by the first one seen; the records are immutable, so sharing
 * them changes nothing a reader can see.
 */
final class SharedMigProfiles {
  /** Distinct tables a fleet has (a few GPU models); past this a table is kept as parsed. */
  private static final int MAX_TABLES = 256;

  private final Map<List<MigProfile>, List<MigProfile>> tables = new ConcurrentHashMap<>();

  /** The inventory with each GPU's profile table replaced by the shared equal one. */
  NodeInventory share(NodeInventory inventory) {
    var gpus = inventory.gpus().stream().map(this::share).toList();
    return new NodeInventory(
        inventory.driverVersion(), inventory.cudaDriverVersion(), inventory.nvmlVersion(), gpus);
  }

  private Gpu share(Gpu gpu) {
    List<MigProfile> profiles = gpu.migProfiles();
    if (profiles.isEmpty()) {
      return gpu;
    }
    List<MigProfile> shared = tables.get(profiles);
    if (shared == null) {
      if (tables.size() >= MAX_TABLES) {
        return gpu;
      }
      shared = tables.computeIfAbsent(profiles, p -> p);
    }
    return gpu.withMigProfiles(shared);
  }

  /** How many distinct tables are held (for tests). */
  int tables() {
    return tables.size();
  }
}
