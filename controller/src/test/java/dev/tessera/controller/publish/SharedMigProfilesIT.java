package dev.tessera.controller.publish;

import static dev.tessera.controller.render.SimulatedInventories.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.Fleets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Simulated nodes' inventories, as the plugin reports them, read with their MIG profile tables
 * shared: each distinct table read once for the fleet.
 */
class SharedMigProfilesIT {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SharedMigProfiles shared = new SharedMigProfiles();
  private final AtomicInteger tablesRead = new AtomicInteger();

  @Test
  void everyGpuOfAModelOnEveryNodeHoldsTheSameTableReadOnceAndTheInventoryIsUnchanged()
      throws Exception {
    var h100 = node("H100-SXM5-80GB", 8);
    // The plugin's form (one table a node) and an older plugin's (a table per GPU).
    var first = read(InventoryStatus.compact(maps(Fleets.withOwnUuids(h100, 1))));
    var second = read(maps(Fleets.withOwnUuids(h100, 2)));

    assertThat(first).isEqualTo(Fleets.withOwnUuids(h100, 1));
    assertThat(second).isEqualTo(Fleets.withOwnUuids(h100, 2));
    for (Gpu gpu : second.gpus()) {
      assertThat(gpu.migProfiles()).isSameAs(first.gpus().get(0).migProfiles());
    }
    assertThat(shared.tables()).isEqualTo(1);
    assertThat(tablesRead).as("tables read for 16 GPUs of one model").hasValue(1);
  }

  @Test
  void anotherModelKeepsItsOwnTableAndGpusWithoutMigAreLeftAlone() throws Exception {
    var a100 = read(maps(node("A100-SXM4-40GB", 2)));
    var h100 = read(maps(node("H100-SXM5-80GB", 2)));
    var l40s = read(maps(node("L40S", 2)));

    assertThat(a100).isEqualTo(node("A100-SXM4-40GB", 2));
    assertThat(a100.gpus().get(0).migProfiles()).isNotEqualTo(h100.gpus().get(0).migProfiles());
    assertThat(l40s.gpus()).allSatisfy(g -> assertThat(g.migProfiles()).isEmpty());
    assertThat(shared.tables()).isEqualTo(2);
    assertThat(tablesRead).hasValue(2);
  }

  @Test
  void aTableThatCannotBeReadNamesItsGpu() throws Exception {
    var inventory = new LinkedHashMap<String, Object>(maps(node("H100-SXM5-80GB", 2)));
    var gpus = new ArrayList<Object>((List<?>) inventory.get("gpus"));
    var second = new LinkedHashMap<Object, Object>((Map<?, ?>) gpus.get(1));
    second.put("migProfiles", List.of(Map.of("profileId", "nineteen")));
    gpus.set(1, second);
    inventory.put("gpus", gpus);

    assertThatThrownBy(() -> read(inventory))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("gpus[1].migProfiles: ");
  }

  private NodeInventory read(Map<?, ?> inventory) {
    return shared.read(
        InventoryStatus.split(inventory),
        raw -> JSON.convertValue(raw, NodeInventory.class),
        raw -> {
          tablesRead.incrementAndGet();
          return JSON.convertValue(raw, new TypeReference<List<MigProfile>>() {});
        });
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> maps(NodeInventory inventory) {
    return JSON.convertValue(inventory, LinkedHashMap.class);
  }
}
