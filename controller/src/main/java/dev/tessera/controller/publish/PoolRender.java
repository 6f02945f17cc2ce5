package dev.tessera.controller.publish;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.controller.render.DesiredSlice;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import java.util.List;
import java.util.Optional;

/**
 * What a node's report renders to in the offering its node asks for (pure). A report is checked in
 * that offering only, when the node is planned: a report one offering cannot render (a MIG profile
 * table no counter set holds, say) still publishes the whole GPUs it reports, and rendering every
 * report in all four offerings as it was listed took 40 % of the controller's start at 5,000 nodes.
 */
sealed interface PoolRender {

  /** The slices to publish; none when withheld or refused. */
  List<DesiredSlice> slices();

  /** Nothing to publish: no report, no Node, or no live plugin. */
  record Withheld() implements PoolRender {
    @Override
    public List<DesiredSlice> slices() {
      return List.of();
    }
  }

  /**
   * The pool, with the devices {@code health} reports unhealthy tainted.
   *
   * @param taintsDropped why the report's health could not be published, when the slices carry no
   *     taints for that reason (they are published without them rather than not at all)
   */
  record Published(List<DesiredSlice> slices, NodeHealth health, Optional<String> taintsDropped)
      implements PoolRender {}

  /**
   * The report cannot be published in this offering: the pool is emptied until the report or the
   * offering changes (a retry would fail the same way).
   */
  record Refused(String reason) implements PoolRender {
    @Override
    public List<DesiredSlice> slices() {
      return List.of();
    }
  }

  static PoolRender of(SliceRenderer renderer, ReportedNodes.Reported report, Offering offering) {
    try {
      return new Published(
          renderer.render(report.inventory(), offering, report.health()),
          report.health(),
          Optional.empty());
    } catch (RuntimeException withHealth) {
      try {
        return new Published(
            renderer.render(report.inventory(), offering, NodeHealth.ALL_HEALTHY),
            NodeHealth.ALL_HEALTHY,
            Optional.of(withHealth.toString()));
      } catch (RuntimeException e) {
        return new Refused("the inventory cannot be published as " + offering.label() + ": " + e);
      }
    }
  }
}
