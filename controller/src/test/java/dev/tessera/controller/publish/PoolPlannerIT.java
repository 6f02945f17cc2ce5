package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SimulatedInventories;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolPlannerIT {
  private final PoolPlanner planner =
      new PoolPlanner(
          new SliceRenderer(),
          new PoolReconciler(new PoolSlices("gpu.tessera.dev")),
          Offering.EXCLUSIVE);

  private static NodeInputs inputs(String label, boolean nodeExists, boolean alive)
      throws Exception {
    return inputs(label, nodeExists, alive, null);
  }

  private static NodeInputs inputs(
      String label, boolean nodeExists, boolean alive, String statusOffering) throws Exception {
    var report =
        new ReportedNodes.Reported(
            SimulatedInventories.node("H100-SXM5-80GB", 2),
            NodeHealth.ALL_HEALTHY,
            "gpunode-uid",
            statusOffering);
    return new NodeInputs("n", Optional.of(report), nodeExists, "uid", label, alive, List.of());
  }

  @Test
  void theLabelChoosesTheOffering() throws Exception {
    var plan = planner.plan(inputs("mig-dynamic", true, true));
    assertThat(plan.offering()).isEqualTo(Offering.MIG_DYNAMIC);
    assertThat(plan.unknownLabel()).isEmpty();
    assertThat(plan.writes()).isNotEmpty().allMatch(SliceWrite.Create.class::isInstance);
  }

  @Test
  void anUnknownLabelFallsBackToTheDefaultAndIsNamed() throws Exception {
    var plan = planner.plan(inputs("mig-dynamc", true, true));
    assertThat(plan.offering()).isEqualTo(Offering.EXCLUSIVE);
    assertThat(plan.unknownLabel()).contains("mig-dynamc");
    assertThat(plan.writes()).isNotEmpty();
  }

  @Test
  void noLabelIsTheDefault() throws Exception {
    var plan = planner.plan(inputs(null, true, true));
    assertThat(plan.offering()).isEqualTo(Offering.EXCLUSIVE);
    assertThat(plan.unknownLabel()).isEmpty();
  }

  @Test
  void nothingIsPublishedWithoutANodeOrALivePlugin() throws Exception {
    assertThat(planner.plan(inputs("exclusive", false, true)).render())
        .isInstanceOf(PoolRender.Withheld.class);
    assertThat(planner.plan(inputs("exclusive", true, false)).render().slices()).isEmpty();
    assertThat(planner.plan(inputs("exclusive", true, false)).writes()).isEmpty();
  }

  @Test
  void theOfferingIsWrittenToTheGpuNodeOnlyWhenItSaysAnother() throws Exception {
    assertThat(planner.plan(inputs(null, true, true, null)).offeringStatus()).contains("exclusive");
    assertThat(planner.plan(inputs(null, true, true, "exclusive")).offeringStatus()).isEmpty();
    assertThat(planner.plan(inputs("shared", true, true, "exclusive")).offeringStatus())
        .contains("shared");
    assertThat(planner.plan(inputs("mig-dynamc", true, true, "exclusive")).offeringStatus())
        .isEmpty();
  }

  @Test
  void noReportNoOfferingWrite() {
    var inputs = new NodeInputs("n", Optional.empty(), true, "uid", "shared", true, List.of());
    assertThat(planner.plan(inputs).offeringStatus()).isEmpty();
  }

  /**
   * A GPU whose profile table no counter set holds: mig-dynamic cannot publish the node, the others
   * publish its whole GPUs as before.
   */
  @Test
  void aReportItsOfferingCannotRenderEmptiesThePool() throws Exception {
    var good = SimulatedInventories.node("H100-SXM5-80GB", 2);
    var gpu = good.gpus().get(1);
    var wide =
        new MigProfile(
            9, "3g.40gb", 3, 2, 40L << 30, 60, 3, 2, 0, 0, 0, List.of(new MigPlacement(4, 64)));
    var bad =
        new NodeInventory(
            good.driverVersion(),
            good.cudaDriverVersion(),
            good.nvmlVersion(),
            List.of(good.gpus().get(0), gpu.withMigProfiles(List.of(wide))));
    var report = new ReportedNodes.Reported(bad, NodeHealth.ALL_HEALTHY, "gpunode-uid", null);
    var published =
        planner.plan(
            new NodeInputs("n", Optional.of(report), true, "uid", "exclusive", true, List.of()));
    assertThat(published.render()).isInstanceOf(PoolRender.Published.class);
    assertThat(published.writes()).isNotEmpty();

    // The node published as exclusive, then relabelled: its slices go, and its GpuNode is told
    // the offering it is held to, not left saying the one it was published in.
    List<ResourceSlice> existing =
        published.writes().stream().map(w -> ((SliceWrite.Create) w).slice()).toList();
    var exclusiveReport =
        new ReportedNodes.Reported(bad, NodeHealth.ALL_HEALTHY, "gpunode-uid", "exclusive");
    var refused =
        planner.plan(
            new NodeInputs(
                "n", Optional.of(exclusiveReport), true, "uid", "mig-dynamic", true, existing));
    assertThat(refused.render())
        .isInstanceOfSatisfying(
            PoolRender.Refused.class,
            r -> assertThat(r.reason()).contains("mig-dynamic").contains("GPU " + gpu.uuid()));
    assertThat(refused.writes())
        .isNotEmpty()
        .allMatch(SliceWrite.Delete.class::isInstance)
        .extracting(SliceWrite::name)
        .containsExactlyInAnyOrderElementsOf(
            existing.stream().map(s -> s.getMetadata().getName()).toList());
    assertThat(refused.offeringStatus()).contains("mig-dynamic");
  }
}
