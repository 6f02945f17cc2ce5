package dev.tessera.controller.publish;

import dev.tessera.controller.render.DesiredSlice;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import java.util.List;
import java.util.Optional;

/**
 * Decides what one node's pool needs (pure): the offering its label asks for, the slices that
 * offering renders from the plugin's report (none when the pool should not be published), the
 * writes that get the cached slices there, and whether the GpuNode's {@code status.offering} must
 * be written (only when it says another offering: nothing is written while nothing changes).
 */
final class PoolPlanner {

  /**
   * @param offering what was rendered
   * @param unknownLabel the node's offering label when it names no offering (the default was used)
   * @param offeringStatus the offering to write to the GpuNode's status; empty when it says it
   *     already, or when there is no report to write it beside
   */
  record Plan(
      Offering offering,
      Optional<String> unknownLabel,
      List<DesiredSlice> desired,
      List<SliceWrite> writes,
      Optional<String> offeringStatus) {}

  private final SliceRenderer renderer;
  private final PoolReconciler reconciler;
  private final Offering defaultOffering;

  PoolPlanner(SliceRenderer renderer, PoolReconciler reconciler, Offering defaultOffering) {
    this.renderer = renderer;
    this.reconciler = reconciler;
    this.defaultOffering = defaultOffering;
  }

  Plan plan(NodeInputs inputs) {
    String label = inputs.offeringLabel();
    Optional<Offering> labelled = label == null ? Optional.empty() : Offering.fromLabel(label);
    Offering offering = labelled.orElse(defaultOffering);
    Optional<String> unknown =
        label != null && labelled.isEmpty() ? Optional.of(label) : Optional.empty();
    List<DesiredSlice> desired =
        inputs.publishable()
            ? renderer.render(
                inputs.report().orElseThrow().inventory(),
                offering,
                inputs.report().orElseThrow().health())
            : List.of();
    List<SliceWrite> writes =
        reconciler.reconcile(inputs.node(), inputs.nodeUid(), desired, inputs.slices());
    Optional<String> offeringStatus =
        inputs
            .report()
            .filter(report -> !offering.label().equals(report.offering()))
            .map(report -> offering.label());
    return new Plan(offering, unknown, desired, writes, offeringStatus);
  }
}
