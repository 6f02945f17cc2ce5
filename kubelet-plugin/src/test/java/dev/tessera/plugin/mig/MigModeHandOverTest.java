package dev.tessera.plugin.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PreparedClaims;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim that switched a GPU into MIG mode hands that duty to a claim still holding a MIG device
 * made on the GPU, so the last one to go switches it off ({@link DynamicMig#handOverMigMode}).
 */
class MigModeHandOverTest {
  private static CreatedMig made(String gpu, int start, boolean enabled) {
    return new CreatedMig(
        gpu,
        "gpu-0-mig-1g10gb-" + start,
        19,
        "1g.10gb",
        new MigPlacement(start, 1),
        7 + start,
        0,
        "MIG-" + start,
        enabled);
  }

  private static ClaimEntry entry(CreatedMig... mig) {
    return new ClaimEntry(ClaimState.PrepareCompleted, "ns", "c", List.of(), List.of(mig));
  }

  @Test
  void theEnablerGoingFirstHandsTheMigModeToTheClaimLeftOnTheGpu() {
    var checkpoint =
        PreparedClaims.empty("boot")
            .with("a", entry(made("GPU-0", 3, true)))
            .with("b", entry(made("GPU-0", 5, false)))
            .with("c", entry(made("GPU-1", 3, false)));

    var next = DynamicMig.handOverMigMode("a", checkpoint);

    assertThat(next.claims().get("a").createdMig())
        .singleElement()
        .extracting(CreatedMig::enabledMigMode)
        .isEqualTo(false);
    assertThat(next.claims().get("b").createdMig())
        .singleElement()
        .extracting(CreatedMig::enabledMigMode)
        .isEqualTo(true);
    assertThat(next.claims().get("c")).isEqualTo(checkpoint.claims().get("c"));
  }

  @Test
  void theLastClaimOnTheGpuKeepsItsDutyAndOthersChangeNothing() {
    var checkpoint =
        PreparedClaims.empty("boot")
            .with("a", entry(made("GPU-0", 3, true)))
            .with("b", entry(made("GPU-1", 5, false)));

    assertThat(DynamicMig.handOverMigMode("a", checkpoint)).isEqualTo(checkpoint);
    assertThat(DynamicMig.handOverMigMode("b", checkpoint)).isEqualTo(checkpoint);
    assertThat(DynamicMig.handOverMigMode("gone", checkpoint)).isEqualTo(checkpoint);
  }
}
