package dev.tessera.controller.render;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import dev.tessera.api.inventory.NodeInventory;
import java.util.List;

/**
 * What a node's pool should hold (pure): the contents of its slices for the node's offering, each
 * within the API's limits. Slice names, pool generations and owners are the publisher's business.
 */
public final class SliceRenderer {
  private final TaintEffect unhealthy;
  private final MigDynamicOffering migDynamic = new MigDynamicOffering();

  /** Unhealthy devices tainted {@code NoSchedule}. */
  public SliceRenderer() {
    this(TaintEffect.NO_SCHEDULE);
  }

  /**
   * @param unhealthy the taint effect of a problem that makes a device unhealthy
   */
  public SliceRenderer(TaintEffect unhealthy) {
    this.unhealthy = unhealthy;
  }

  /** The pool's slices with the devices the node plugin reports unhealthy tainted. */
  public List<DesiredSlice> render(NodeInventory node, Offering offering, NodeHealth health) {
    return HealthTaints.apply(render(node, offering), health, unhealthy);
  }

  public List<DesiredSlice> render(NodeInventory node, Offering offering) {
    return switch (offering) {
      case EXCLUSIVE -> ExclusiveOffering.render(node);
      case MIG_STATIC -> MigStaticOffering.render(node);
      case MIG_DYNAMIC -> migDynamic.render(node);
      case SHARED -> SharedOffering.render(node);
    };
  }
}
