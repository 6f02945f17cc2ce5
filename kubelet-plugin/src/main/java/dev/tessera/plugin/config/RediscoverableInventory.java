package dev.tessera.plugin.config;

import dev.tessera.api.inventory.NodeInventory;
import java.util.function.Supplier;

/**
 * The node's inventory as discovered at start-up, discovered again when the start-up rollback has
 * changed the MIG state it saw (a killed plugin's half-made MIG devices destroyed, MIG mode
 * switched back off): what the plugin reports and plans with is then what the GPUs are, not what
 * the killed plugin left.
 */
public final class RediscoverableInventory {
  private final Supplier<NodeInventory> discovery;
  private volatile NodeInventory inventory;

  public RediscoverableInventory(Supplier<NodeInventory> discovery) {
    this.discovery = discovery;
    this.inventory = discovery.get();
  }

  /**
   * Not a {@code Supplier} itself, so that one bean answers for {@code Supplier<NodeInventory>}.
   */
  public NodeInventory current() {
    return inventory;
  }

  public void rediscover() {
    inventory = discovery.get();
  }
}
