package dev.tessera.controller.publish;

import static dev.tessera.controller.render.SimulatedInventories.node;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.NodeInventory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The two forms of a simulated node's inventory in its GpuNode's status, as the controller reads
 * them: each MIG profile table once (the plugin since decision 56), and every GPU with its own copy
 * (older plugins). Both read to the inventory the plugin discovered.
 */
class ReportedInventoryFormsIT {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final ReportedNodes nodes = new ReportedNodes(JSON);

  @Test
  void aTableCarriedOnceReadsAsTheInventoryTheNodeDiscovered() throws Exception {
    NodeInventory h100 = node("H100-SXM5-80GB", 8);
    Map<String, Object> compact = InventoryStatus.compact(record(h100));

    assertThat(nodes.update(ReportedNodesTest.gpuNode(Map.of("inventory", compact)))).isTrue();

    assertThat(nodes.of("node-a").orElseThrow().inventory()).isEqualTo(h100);
    assertThat((List<?>) compact.get("migProfileTables")).hasSize(1);
    assertThat(JSON.writeValueAsString(compact).length())
        .as("8 H100s' inventory with their table once, against 8 copies")
        .isLessThan(JSON.writeValueAsString(record(h100)).length() / 3);
  }

  @Test
  void anOlderPluginsInlineTablesReadAsBefore() throws Exception {
    NodeInventory h100 = node("H100-SXM5-80GB", 2);

    assertThat(nodes.update(ReportedNodesTest.gpuNode(Map.of("inventory", record(h100))))).isTrue();

    assertThat(nodes.of("node-a").orElseThrow().inventory()).isEqualTo(h100);
  }

  @Test
  void aGpuNamingATableThatIsNotThereRejectsTheReport() throws Exception {
    Map<String, Object> compact = InventoryStatus.compact(record(node("H100-SXM5-80GB", 2)));
    var gpus = new ArrayList<Object>((List<?>) compact.get("gpus"));
    var second = new LinkedHashMap<Object, Object>((Map<?, ?>) gpus.get(1));
    second.put("migProfileTable", 3);
    gpus.set(1, second);
    compact.put("gpus", gpus);

    nodes.update(ReportedNodesTest.gpuNode(Map.of("inventory", compact)));

    assertThat(nodes.of("node-a")).isEmpty();
    assertThat(nodes.rejectedNodes()).isEqualTo(1);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> record(NodeInventory inventory) {
    return JSON.convertValue(inventory, Map.class);
  }
}
