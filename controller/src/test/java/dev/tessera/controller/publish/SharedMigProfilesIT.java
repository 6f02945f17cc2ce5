package dev.tessera.controller.publish;

import static dev.tessera.controller.render.SimulatedInventories.node;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.controller.render.Fleets;
import org.junit.jupiter.api.Test;

/** Simulated nodes' inventories, as the plugin reports them, sharing their MIG profile tables. */
class SharedMigProfilesIT {
  private final SharedMigProfiles shared = new SharedMigProfiles();

  @Test
  void everyGpuOfAModelOnEveryNodeHoldsTheSameTableAndTheInventoryIsUnchanged() throws Exception {
    var h100 = node("H100-SXM5-80GB", 8);
    var first = shared.share(Fleets.withOwnUuids(h100, 1));
    var second = shared.share(Fleets.withOwnUuids(h100, 2));

    assertThat(first).isEqualTo(Fleets.withOwnUuids(h100, 1));
    assertThat(second).isEqualTo(Fleets.withOwnUuids(h100, 2));
    for (Gpu gpu : second.gpus()) {
      assertThat(gpu.migProfiles()).isSameAs(first.gpus().get(0).migProfiles());
    }
    assertThat(shared.tables()).isEqualTo(1);
  }

  @Test
  void anotherModelKeepsItsOwnTableAndGpusWithoutMigAreLeftAlone() throws Exception {
    var a100 = shared.share(node("A100-SXM4-40GB", 2));
    var h100 = shared.share(node("H100-SXM5-80GB", 2));
    var l40s = shared.share(node("L40S", 2));

    assertThat(a100.gpus().get(0).migProfiles()).isNotEqualTo(h100.gpus().get(0).migProfiles());
    assertThat(l40s.gpus()).allSatisfy(g -> assertThat(g.migProfiles()).isEmpty());
    assertThat(shared.tables()).isEqualTo(2);
  }
}
