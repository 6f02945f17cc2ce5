package dev.tessera.plugin.mig;

import dev.tessera.api.inventory.MigDevice;
import dev.tessera.plugin.claim.MigTarget;

/** What preparing one MIG device takes, as {@link MigPlanner} decides it. */
public sealed interface MigStep {
  MigTarget target();

  /** The device exists and was not made by this plugin (an admin's): use it, never destroy it. */
  record UseExisting(MigTarget target, MigDevice device) implements MigStep {}

  /**
   * Create the GPU instance at the target's placement and a compute instance spanning it, first
   * switching the GPU into MIG mode if {@code enableMigMode}.
   */
  record Create(MigTarget target, boolean enableMigMode) implements MigStep {}
}
