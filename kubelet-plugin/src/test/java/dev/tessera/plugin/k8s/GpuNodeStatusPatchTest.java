package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuNodeStatusPatchTest {
  private static final Map<String, Object> WRITTEN =
      Map.of(
          "gpuCount",
          8,
          "inventory",
          Map.of("gpus", List.of(Map.of("uuid", "GPU-0"))),
          "gpusFree",
          8,
          "devices",
          List.of());

  @Test
  void theFirstWriteSendsEveryField() {
    assertThat(GpuNodeStatusPatch.between(null, WRITTEN)).isEqualTo(WRITTEN);
  }

  @Test
  void aPrepareSendsTheHoldersAndFreeCountsButNotTheInventory() {
    var now =
        Map.<String, Object>of(
            "gpuCount",
            8,
            "inventory",
            Map.of("gpus", List.of(Map.of("uuid", "GPU-0"))),
            "gpusFree",
            7,
            "devices",
            List.of(Map.of("device", "gpu-0", "claims", List.of("u1"))));

    assertThat(GpuNodeStatusPatch.between(WRITTEN, now))
        .containsOnlyKeys("gpusFree", "devices")
        .containsEntry("gpusFree", 7)
        .containsEntry("devices", now.get("devices"));
  }

  @Test
  void aChangedInventoryIsSentWhole() {
    var gpus = List.of(Map.of("uuid", "GPU-0"), Map.of("uuid", "GPU-1"));
    var now = new java.util.HashMap<>(WRITTEN);
    now.put("inventory", Map.of("gpus", gpus));

    assertThat(GpuNodeStatusPatch.between(WRITTEN, now))
        .isEqualTo(Map.of("inventory", Map.of("gpus", gpus)));
  }

  @Test
  void nothingChangedSendsNothing() {
    assertThat(GpuNodeStatusPatch.between(WRITTEN, Map.copyOf(WRITTEN))).isEmpty();
  }
}
