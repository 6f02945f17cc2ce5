package dev.tessera.plugin.mig;

import static dev.tessera.plugin.mig.FakeMigHardware.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.MigTarget;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigPlannerTest {
  private static final String GPU = "GPU-0";
  private final MigPlanner planner = new MigPlanner();
  private final ClaimRef ref = new ClaimRef("default", "c1", "uid-1");

  private static MigTarget target(String device, int profileId, int start, int size) {
    return new MigTarget(
        GPU, 0, device, profileId, "p" + profileId, new MigPlacement(start, size), 10L << 30);
  }

  private static final MigTarget ONE_G_AT_3 = target("gpu-0-mig-1g10gb-3", 19, 3, 1);

  private List<MigStep> plan(GpuMigState state, MigTarget... targets) throws Exception {
    return planner.plan(ref, List.of(targets), Map.of(GPU, state), Map.of());
  }

  private static GpuMigState state(MigMode mode, GpuMigState.Instance... instances) {
    return new GpuMigState(GPU, mode, List.of(instances));
  }

  @Test
  void aFreePlacementIsCreated() throws Exception {
    assertThat(plan(state(MigMode.ENABLED, instance(9, 19, 2, 1)), ONE_G_AT_3))
        .containsExactly(new MigStep.Create(ONE_G_AT_3, false));
  }

  @Test
  void aGpuNotInMigModeIsSwitchedOnceForTheClaim() throws Exception {
    var other = target("gpu-0-mig-1g10gb-5", 19, 5, 1);
    assertThat(plan(state(MigMode.DISABLED), ONE_G_AT_3, other))
        .containsExactly(new MigStep.Create(ONE_G_AT_3, true), new MigStep.Create(other, false));
  }

  @Test
  void anAdminsDeviceAtThePlacementIsUsedAsItIs() throws Exception {
    var steps = plan(state(MigMode.ENABLED, instance(10, 19, 3, 1)), ONE_G_AT_3);
    assertThat(steps)
        .singleElement()
        .isInstanceOfSatisfying(
            MigStep.UseExisting.class,
            use -> {
              assertThat(use.device().uuid()).isEqualTo("MIG-admin-10");
              assertThat(use.device().gpuInstanceId()).isEqualTo(10);
              assertThat(use.device().computeInstanceId()).isZero();
            });
  }

  @Test
  void refusesADeviceAnotherClaimHadCreated() {
    var theirs = ONE_G_AT_3.intent(false).made(10, 0, "MIG-x");
    assertThatThrownBy(
            () ->
                planner.plan(
                    ref,
                    List.of(ONE_G_AT_3),
                    Map.of(GPU, state(MigMode.ENABLED, instance(10, 19, 3, 1))),
                    Map.of(theirs, "default/other (uid-2)")))
        .hasMessageContaining("created for claim default/other (uid-2)");
  }

  @Test
  void refusesAnOverlapWithAnAdminsInstance() {
    // A 2g instance at slices 2..3 covers slice 3.
    assertThatThrownBy(() -> plan(state(MigMode.ENABLED, instance(4, 14, 2, 2)), ONE_G_AT_3))
        .hasMessageContaining("gpu-0-mig-1g10gb-3")
        .hasMessageContaining("overlaps GPU instance 4 (profile id 14 at slices 2..3")
        .hasMessageContaining("not created by Tessera");
  }

  @Test
  void refusesAnOverlapWithAnotherClaimsInstance() {
    var twoG = target("gpu-0-mig-2g20gb-2", 14, 2, 2);
    var theirs = twoG.intent(false).made(4, 0, "MIG-y");
    assertThatThrownBy(
            () ->
                planner.plan(
                    ref,
                    List.of(ONE_G_AT_3),
                    Map.of(GPU, state(MigMode.ENABLED, instance(4, 14, 2, 2))),
                    Map.of(theirs, "default/other (uid-2)")))
        .hasMessageContaining("overlaps GPU instance 4")
        .hasMessageContaining("created for claim default/other (uid-2)");
  }

  @Test
  void refusesTwoOverlappingDevicesInOneClaim() {
    assertThatThrownBy(
            () -> plan(state(MigMode.ENABLED), target("gpu-0-mig-2g20gb-2", 14, 2, 2), ONE_G_AT_3))
        .hasMessageContaining("overlaps another MIG device of the same claim at slices 2..3");
  }

  @Test
  void refusesAGpuWithoutMig() {
    assertThatThrownBy(() -> plan(state(MigMode.UNSUPPORTED), ONE_G_AT_3))
        .hasMessageContaining("the GPU does not support MIG");
  }

  @Test
  void refusesAGpuWaitingForAReset() {
    assertThatThrownBy(() -> plan(state(MigMode.ENABLE_PENDING_RESET), ONE_G_AT_3))
        .hasMessageContaining("changes at its next reset (ENABLE_PENDING_RESET)")
        .hasMessageContaining("never resets a GPU");
    assertThatThrownBy(() -> plan(state(MigMode.DISABLE_PENDING_RESET), ONE_G_AT_3))
        .hasMessageContaining("DISABLE_PENDING_RESET");
  }

  @Test
  void refusesAnInstanceSplitIntoSeveralComputeInstances() {
    var split =
        new GpuMigState.Instance(
            1,
            9,
            new MigPlacement(0, 4),
            List.of(new GpuMigState.Compute(0, "MIG-a"), new GpuMigState.Compute(1, "MIG-b")));
    assertThatThrownBy(
            () -> plan(state(MigMode.ENABLED, split), target("gpu-0-mig-3g40gb-0", 9, 0, 4)))
        .hasMessageContaining("with 2 compute instances");
  }

  @Test
  void refusesAGpuInstanceWithoutAComputeInstance() {
    var bare = new GpuMigState.Instance(10, 19, new MigPlacement(3, 1), List.of());
    assertThatThrownBy(() -> plan(state(MigMode.ENABLED, bare), ONE_G_AT_3))
        .hasMessageContaining("with 0 compute instances");
  }

  @Test
  void refusesAGpuWhoseStateIsUnknown() {
    assertThatThrownBy(() -> planner.plan(ref, List.of(ONE_G_AT_3), Map.of(), Map.of()))
        .hasMessageContaining("could not be read");
  }
}
