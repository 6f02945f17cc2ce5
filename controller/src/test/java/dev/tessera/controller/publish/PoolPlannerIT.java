package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SimulatedInventories;
import dev.tessera.controller.render.SliceRenderer;
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
    assertThat(planner.plan(inputs("exclusive", false, true)).desired()).isEmpty();
    assertThat(planner.plan(inputs("exclusive", true, false)).desired()).isEmpty();
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
}
