package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SimulatedInventories;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * A node whose last reconcile wrote nothing is skipped only while everything the plan reads is as
 * it was then: a published mig-dynamic pool, then each input changed in turn.
 */
class SettledPoolsIT {
  private final PoolPlanner planner =
      new PoolPlanner(
          new SliceRenderer(),
          new PoolReconciler(new PoolSlices("gpu.tessera.dev")),
          Offering.EXCLUSIVE);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private final SettledPools settled = new SettledPools();

  /** The node as it is once its first plan's writes are in the cache. */
  private NodeInputs published(ReportedNodes.Reported report) {
    var empty =
        new NodeInputs("n", Optional.of(report), true, "uid", "mig-dynamic", true, List.of());
    var slices = new ArrayList<ResourceSlice>();
    for (SliceWrite write : planner.plan(empty).writes()) {
      var slice = ((SliceWrite.Create) write).slice();
      slice.getMetadata().setResourceVersion("1");
      slices.add(slice);
    }
    return new NodeInputs("n", Optional.of(report), true, "uid", "mig-dynamic", true, slices);
  }

  private static ReportedNodes.Reported report() throws Exception {
    return new ReportedNodes.Reported(
        SimulatedInventories.node("H100-SXM5-80GB", 2),
        NodeHealth.ALL_HEALTHY,
        "gpunode-uid",
        "mig-dynamic");
  }

  @Test
  void aNodeIsSettledOnlyOnceItsPlanWritesNothing() throws Exception {
    var inputs = published(report());
    assertThat(settled.holds(inputs)).isFalse();
    var plan = planner.plan(inputs);
    assertThat(plan.writes()).isEmpty();
    assertThat(plan.offeringStatus()).isEmpty();
    settled.settle(inputs);
    assertThat(settled.holds(copy(inputs, inputs.slices()))).isTrue();
  }

  @Test
  void aNodeIsSettledAliveOnlyWhileSettledWithItsPluginAlive() throws Exception {
    var inputs = published(report());
    assertThat(settled.settledAlive("n")).as("never reconciled").isFalse();
    settled.settle(inputs);
    assertThat(settled.settledAlive("n")).isTrue();
    settled.settle(
        new NodeInputs("n", inputs.report(), true, "uid", "mig-dynamic", false, inputs.slices()));
    assertThat(settled.settledAlive("n")).as("settled with its plugin dead").isFalse();
    settled.settle(inputs);
    settled.forget("n");
    assertThat(settled.settledAlive("n")).as("its last reconcile wrote").isFalse();
  }

  @Test
  void anyInputThePlanReadsUnsettlesTheNode() throws Exception {
    var report = report();
    var inputs = published(report);
    settled.settle(inputs);
    var changed =
        Map.of(
            "offering label",
            new NodeInputs("n", inputs.report(), true, "uid", "exclusive", true, inputs.slices()),
            "plugin liveness",
            new NodeInputs(
                "n", inputs.report(), true, "uid", "mig-dynamic", false, inputs.slices()),
            "node existence",
            new NodeInputs(
                "n", inputs.report(), false, "uid", "mig-dynamic", true, inputs.slices()),
            "node UID",
            new NodeInputs(
                "n", inputs.report(), true, "uid-2", "mig-dynamic", true, inputs.slices()),
            "report's offering",
            copyWith(
                new ReportedNodes.Reported(
                    report.inventory(), report.health(), report.uid(), "exclusive"),
                inputs),
            "report's inventory (an equal copy: the records are compared by identity)",
            copyWith(
                new ReportedNodes.Reported(
                    JSON.convertValue(report.inventory(), NodeInventory.class),
                    report.health(),
                    report.uid(),
                    report.offering()),
                inputs),
            "a slice gone",
            copy(inputs, inputs.slices().subList(1, inputs.slices().size())),
            "a slice's digest",
            copy(inputs, withDigest(inputs.slices(), "other")));
    changed.forEach((what, input) -> assertThat(settled.holds(input)).as(what).isFalse());
    assertThat(settled.holds(copy(inputs, inputs.slices()))).as("unchanged").isTrue();
  }

  @Test
  void aNodeWithNothingLeftIsNotKept() {
    settled.settle(new NodeInputs("gone", Optional.empty(), false, "", null, false, List.of()));
    assertThat(settled.size()).isZero();
  }

  private static NodeInputs copy(NodeInputs inputs, List<ResourceSlice> slices) {
    return new NodeInputs(
        inputs.node(),
        inputs.report(),
        inputs.nodeExists(),
        inputs.nodeUid(),
        inputs.offeringLabel(),
        inputs.pluginAlive(),
        List.copyOf(slices));
  }

  private static NodeInputs copyWith(ReportedNodes.Reported report, NodeInputs inputs) {
    return new NodeInputs(
        inputs.node(),
        Optional.of(report),
        inputs.nodeExists(),
        inputs.nodeUid(),
        inputs.offeringLabel(),
        inputs.pluginAlive(),
        inputs.slices());
  }

  /** The slices with the first one's digest changed (a copy: the others are shared). */
  private static List<ResourceSlice> withDigest(List<ResourceSlice> slices, String digest) {
    var first = new ResourceSlice();
    first.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder(slices.get(0).getMetadata())
            .withAnnotations(Map.of(SliceContentHash.ANNOTATION, digest))
            .build());
    first.setSpec(slices.get(0).getSpec());
    var all = new ArrayList<>(slices);
    all.set(0, first);
    return all;
  }
}
