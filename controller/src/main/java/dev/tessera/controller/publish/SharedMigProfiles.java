package dev.tessera.controller.publish;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One copy of each GPU model's MIG profile table for the whole fleet, read once. Every reported
 * H100 carries the same 7 profiles and 25 placements: parsed per GPU they were most of the
 * controller's heap (5,000 nodes of 8 H100s: 1,000,000 placements and 280,000 profiles, ~45 MB of a
 * ~140 MB live set), and reading them per GPU was most of the time a report took to read — 8 tables
 * a node, through Jackson, on the informers' thread at a fleet's start (issue 13,
 * docs/benchmarks.md). A table equal to one read before, as JSON maps, is given that one's records;
 * the records are immutable, so sharing them changes nothing a reader can see.
 */
final class SharedMigProfiles {
  /** Distinct tables a fleet has (a few GPU models); past this a table is read and kept apart. */
  private static final int MAX_TABLES = 256;

  private static final String GPUS = "gpus";
  private static final String PROFILES = "migProfiles";

  /** Each table read, by the JSON maps it was read from (equal maps, equal records). */
  private final Map<Object, List<MigProfile>> tables = new ConcurrentHashMap<>();

  /**
   * The inventory of a status, its tables taken out ({@link InventoryStatus#split}): the rest read
   * through {@code readInventory}, each GPU's table through {@code readTable} only where the fleet
   * has not read an equal one.
   *
   * @throws RuntimeException what either reader throws; a table's names the GPU
   */
  NodeInventory read(
      InventoryStatus.Split inventory,
      Function<Object, NodeInventory> readInventory,
      Function<Object, List<MigProfile>> readTable) {
    NodeInventory read = readInventory.apply(inventory.withoutTables());
    List<Object> rawTables = inventory.gpuTables();
    // The GPUs of one report that name one table are given the same object: hashed once.
    var byObject = new IdentityHashMap<Object, List<MigProfile>>();
    var withTables = new ArrayList<Gpu>(read.gpus().size());
    for (int i = 0; i < read.gpus().size(); i++) {
      Gpu gpu = read.gpus().get(i);
      Object raw = i < rawTables.size() ? rawTables.get(i) : null;
      if (raw == null) {
        withTables.add(gpu);
        continue;
      }
      List<MigProfile> table = byObject.get(raw);
      if (table == null) {
        table = table(i, raw, readTable);
        byObject.put(raw, table);
      }
      withTables.add(gpu.withMigProfiles(table));
    }
    return new NodeInventory(
        read.driverVersion(), read.cudaDriverVersion(), read.nvmlVersion(), withTables);
  }

  private List<MigProfile> table(
      int gpu, Object raw, Function<Object, List<MigProfile>> readTable) {
    List<MigProfile> held = tables.get(raw);
    if (held != null) {
      return held;
    }
    List<MigProfile> read;
    try {
      read = List.copyOf(readTable.apply(raw));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          GPUS + "[" + gpu + "]." + PROFILES + ": " + e.getMessage(), e);
    }
    if (tables.size() >= MAX_TABLES) {
      return read;
    }
    return tables.computeIfAbsent(raw, r -> read);
  }

  /** How many distinct tables are held (for tests). */
  int tables() {
    return tables.size();
  }
}
