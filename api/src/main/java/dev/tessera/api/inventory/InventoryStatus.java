package dev.tessera.api.inventory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a GpuNode's {@code status.inventory} carries a {@link NodeInventory}: as the record's JSON,
 * but with each distinct MIG profile table once, in {@code migProfileTables}, and each GPU naming
 * its table by index in {@code migProfileTable}. Every H100 reports the same 7 profiles and 25
 * placements, 2.2 KB of JSON: inline on each of 8 GPUs they were 95 % of a GpuNode, which the API
 * server stores, lists and sends on every status write, and which a controller's start parses for
 * the whole fleet (docs/benchmarks.md, "The MIG profile table once per GpuNode"; decision 56).
 *
 * <p>A GPU keeps {@code migProfiles: []} beside its index, so a controller from before this form
 * still reads the report (it sees no MIG profiles until it is upgraded). A GPU whose {@code
 * migProfiles} are inline and that names no table, as an older plugin writes it, reads as before.
 *
 * <p>Works on the maps a JSON library makes of the record (the api module holds no JSON library).
 */
public final class InventoryStatus {
  public static final String TABLES = "migProfileTables";
  public static final String TABLE = "migProfileTable";
  private static final String GPUS = "gpus";
  private static final String PROFILES = "migProfiles";

  private InventoryStatus() {}

  /**
   * The status form of an inventory given as the maps of its record's JSON: each GPU's non-empty
   * {@code migProfiles} moved into {@code migProfileTables} (equal tables once) and named by index.
   */
  public static Map<String, Object> compact(Map<String, Object> inventory) {
    var out = new LinkedHashMap<>(inventory);
    if (!(inventory.get(GPUS) instanceof List<?> gpus)) {
      return out;
    }
    var tables = new ArrayList<Object>();
    var compactGpus = new ArrayList<Object>(gpus.size());
    for (Object entry : gpus) {
      if (entry instanceof Map<?, ?> gpu
          && gpu.get(PROFILES) instanceof List<?> profiles
          && !profiles.isEmpty()) {
        int table = tables.indexOf(profiles);
        if (table < 0) {
          table = tables.size();
          tables.add(profiles);
        }
        var compactGpu = new LinkedHashMap<Object, Object>(gpu);
        compactGpu.put(PROFILES, List.of());
        compactGpu.put(TABLE, table);
        compactGpus.add(compactGpu);
      } else {
        compactGpus.add(entry);
      }
    }
    out.put(GPUS, compactGpus);
    if (!tables.isEmpty()) {
      out.put(TABLES, tables);
    }
    return out;
  }

  /**
   * A status's {@code inventory} with each GPU's MIG profile table taken out.
   *
   * @param withoutTables the inventory's maps, each GPU with {@code migProfiles: []} and no index,
   *     the tables' field gone
   * @param gpuTables by GPU, in order, its table (the maps of its {@code migProfiles}) or null
   *     where it has none; every GPU that names one table is given the same table object
   */
  public record Split(Map<Object, Object> withoutTables, List<Object> gpuTables) {}

  /**
   * Takes each GPU's table out of a status's {@code inventory}: the one it names in {@code
   * migProfileTables}, or its inline {@code migProfiles} as an older plugin writes them. A reader
   * that shares tables reads the rest apart from them.
   *
   * @throws IllegalArgumentException naming the field, where a GPU names a table that is not there
   */
  public static Split split(Map<?, ?> inventory) {
    var out = new LinkedHashMap<Object, Object>(inventory);
    Object tablesField = out.remove(TABLES);
    if (!(inventory.get(GPUS) instanceof List<?> gpus)) {
      return new Split(out, List.of());
    }
    List<?> tables = tablesField instanceof List<?> t ? t : List.of();
    if (tablesField != null && !(tablesField instanceof List<?>)) {
      throw new IllegalArgumentException(TABLES + " is not a list");
    }
    var without = new ArrayList<Object>(gpus.size());
    var gpuTables = new ArrayList<Object>(gpus.size());
    for (int i = 0; i < gpus.size(); i++) {
      Object entry = gpus.get(i);
      Object table = entry instanceof Map<?, ?> gpu ? tableOf(i, gpu, tables) : null;
      if (table == null) {
        without.add(entry);
      } else {
        var withoutTable = new LinkedHashMap<Object, Object>((Map<?, ?>) entry);
        withoutTable.remove(TABLE);
        withoutTable.put(PROFILES, List.of());
        without.add(withoutTable);
      }
      gpuTables.add(table);
    }
    out.put(GPUS, without);
    return new Split(out, Collections.unmodifiableList(gpuTables));
  }

  /**
   * The record's JSON maps again from a status's {@code inventory}: each GPU that names a table
   * gets it as its {@code migProfiles} (the same table object for every such GPU); the tables'
   * field goes.
   *
   * @throws IllegalArgumentException naming the field, where a GPU names a table that is not there
   */
  public static Map<Object, Object> expand(Map<?, ?> inventory) {
    Split split = split(inventory);
    if (!(split.withoutTables().get(GPUS) instanceof List<?> gpus)) {
      return split.withoutTables();
    }
    var expanded = new ArrayList<Object>(gpus.size());
    for (int i = 0; i < gpus.size(); i++) {
      Object table = split.gpuTables().get(i);
      if (table == null) {
        expanded.add(gpus.get(i));
      } else {
        var withTable = new LinkedHashMap<Object, Object>((Map<?, ?>) gpus.get(i));
        withTable.put(PROFILES, table);
        expanded.add(withTable);
      }
    }
    var out = split.withoutTables();
    out.put(GPUS, expanded);
    return out;
  }

  /** The GPU's table: the one its index names, else its non-empty inline one; null if none. */
  private static Object tableOf(int i, Map<?, ?> gpu, List<?> tables) {
    if (!gpu.containsKey(TABLE)) {
      return gpu.get(PROFILES) instanceof List<?> inline && !inline.isEmpty() ? inline : null;
    }
    Object index = gpu.get(TABLE);
    if (!(index instanceof Number n)
        || n.doubleValue() != n.intValue()
        || n.intValue() < 0
        || n.intValue() >= tables.size()) {
      throw new IllegalArgumentException(
          "gpus["
              + i
              + "]."
              + TABLE
              + " is "
              + index
              + ": no such entry in "
              + TABLES
              + " ("
              + tables.size()
              + " tables)");
    }
    return tables.get(n.intValue());
  }
}
