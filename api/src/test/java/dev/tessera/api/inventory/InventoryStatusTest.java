package dev.tessera.api.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status form of an inventory: MIG profile tables once, named by index, and back. */
class InventoryStatusTest {
  private static final List<Object> H100 =
      List.of(
          Map.of("name", "1g.10gb", "profileId", 19, "placements", List.of(Map.of("start", 0))),
          Map.of("name", "7g.80gb", "profileId", 0, "placements", List.of(Map.of("start", 0))));
  private static final List<Object> A100 =
      List.of(Map.of("name", "1g.5gb", "profileId", 19, "placements", List.of()));

  private static Map<String, Object> gpu(int minor, List<Object> profiles) {
    return Map.of("minor", minor, "uuid", "GPU-" + minor, "migProfiles", profiles);
  }

  private static Map<String, Object> inventory(List<Object> gpus) {
    return Map.of("driverVersion", "580.95.05", "gpus", gpus);
  }

  @Test
  void equalTablesAreCarriedOnceAndEachGpuNamesItsOwn() {
    var full = inventory(List.of(gpu(0, H100), gpu(1, A100), gpu(2, H100), gpu(3, List.of())));

    var status = InventoryStatus.compact(full);

    assertThat(status.get("migProfileTables")).isEqualTo(List.of(H100, A100));
    List<Object> gpus = List.copyOf((List<?>) status.get("gpus"));
    List<Object> tables =
        gpus.stream().<Object>map(g -> ((Map<?, ?>) g).get("migProfileTable")).toList();
    assertThat(tables).containsExactly(0, 1, 0, null);
    assertThat(gpus)
        .allSatisfy(g -> assertThat(((Map<?, ?>) g).get("migProfiles")).isEqualTo(List.of()));
    assertThat(status).containsEntry("driverVersion", "580.95.05");

    assertThat(InventoryStatus.expand(status)).isEqualTo(full);
  }

  @Test
  void anInventoryWithoutMigProfilesCarriesNoTables() {
    var full = inventory(List.of(gpu(0, List.of()), gpu(1, List.of())));

    var status = InventoryStatus.compact(full);

    assertThat(status).isEqualTo(full).doesNotContainKey("migProfileTables");
    assertThat(InventoryStatus.expand(status)).isEqualTo(full);
  }

  @Test
  void anOlderPluginsInlineTablesReadAsTheyAre() {
    var older = inventory(List.of(gpu(0, H100), gpu(1, H100)));

    assertThat(InventoryStatus.expand(older)).isEqualTo(older);
  }

  @Test
  @SuppressWarnings("unchecked")
  void splitTakesEachGpusTableOutTheGpusNamingOneTableSharingItsObject() {
    var status =
        InventoryStatus.compact(
            inventory(List.of(gpu(0, H100), gpu(1, A100), gpu(2, H100), gpu(3, List.of()))));
    var older = inventory(List.of(gpu(0, A100)));

    var split = InventoryStatus.split(status);
    var olderSplit = InventoryStatus.split(older);

    assertThat(split.gpuTables()).containsExactly(H100, A100, H100, null);
    assertThat(split.gpuTables().get(2)).isSameAs(split.gpuTables().get(0));
    assertThat(split.withoutTables()).doesNotContainKey("migProfileTables");
    assertThat((List<?>) split.withoutTables().get("gpus"))
        .allSatisfy(
            g ->
                assertThat((Map<Object, Object>) g)
                    .containsEntry("migProfiles", List.of())
                    .doesNotContainKey("migProfileTable"));
    assertThat(olderSplit.gpuTables()).containsExactly(A100);
    assertThat(olderSplit.withoutTables()).isEqualTo(inventory(List.of(gpu(0, List.of()))));
  }

  @Test
  void aGpuNamingATableThatIsNotThereIsRefusedNamingTheField() {
    var status = InventoryStatus.compact(inventory(List.of(gpu(0, H100), gpu(1, H100))));
    @SuppressWarnings("unchecked")
    var gpus = (List<Object>) status.get("gpus");
    var second = new java.util.HashMap<Object, Object>((Map<?, ?>) gpus.get(1));

    second.put("migProfileTable", 1);
    assertThatThrownBy(() -> InventoryStatus.expand(withGpus(status, gpus.get(0), second)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gpus[1].migProfileTable is 1")
        .hasMessageContaining("1 tables");
    second.put("migProfileTable", 0.5);
    assertThatThrownBy(() -> InventoryStatus.expand(withGpus(status, gpus.get(0), second)))
        .hasMessageContaining("gpus[1].migProfileTable is 0.5");
    second.put("migProfileTable", "0");
    assertThatThrownBy(() -> InventoryStatus.expand(withGpus(status, gpus.get(0), second)))
        .hasMessageContaining("gpus[1].migProfileTable is 0");
  }

  @Test
  void tablesThatAreNotAListAreRefused() {
    var status = new java.util.HashMap<String, Object>(inventory(List.of(gpu(0, List.of()))));
    status.put("migProfileTables", "none");

    assertThatThrownBy(() -> InventoryStatus.expand(status))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("migProfileTables is not a list");
  }

  private static Map<String, Object> withGpus(Map<String, Object> status, Object... gpus) {
    var copy = new java.util.HashMap<>(status);
    copy.put("gpus", List.of(gpus));
    return copy;
  }
}
