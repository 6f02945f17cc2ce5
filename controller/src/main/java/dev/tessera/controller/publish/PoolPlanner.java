package dev.tessera.controller.publish;

import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import java.util.List;
import java.util.Optional;

/**
 * Decides what one node's pool needs (pure): the offering its label asks for, what that offering
 * renders from the plugin's report ({@link PoolRender}: nothing when the pool should not be
 * published or the report cannot be), the writes that get the cached slices there, and whether the
 * GpuNode's {@code status.offering} must be written (only when it says another offering: nothing is
 * written while nothing changes).
 */
final class PoolPlanner {

  /**
   * @param offering what was rendered
   * @param unknownLabel the node's offering label when it names no offering (the default was used)
   * @param render the pool in that offering, or why there is none
   * @param offeringStatus the offering to write to the GpuNode's status; empty when it says it
   *     already, or when there is no report to write it beside (a refused report gets it too: the
   *     field says which offering the node is held to, here one that publishes nothing)
   */
  record Plan(
      Offering offering,
      Optional<String> unknownLabel,
      PoolRender render,
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
    PoolRender render =
        inputs.publishable()
            ? PoolRender.of(renderer, inputs.report().orElseThrow(), offering)
            : new PoolRender.Withheld();
    List<SliceWrite> writes =
        reconciler.reconcile(inputs.node(), inputs.nodeUid(), render.slices(), inputs.slices());
    Optional<String> offeringStatus =
        inputs
            .report()
            .filter(report -> !offering.label().equals(report.offering()))
            .map(report -> offering.label());
    return new Plan(offering, unknown, render, writes, offeringStatus);
  }
}
