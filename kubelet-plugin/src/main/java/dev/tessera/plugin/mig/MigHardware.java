package dev.tessera.plugin.mig;

import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PrepareException;

/** Where MIG devices are read, made and destroyed: NVML on a node, a fake in unit tests. */
public interface MigHardware {

  /** The GPU's MIG mode and instances now. */
  GpuMigState read(String gpuUuid) throws PrepareException;

  /**
   * Makes the device (switching MIG mode on first if the step says so, and only where that takes
   * effect without a reset) and returns its record with ids and UUID. On failure it destroys what
   * it made before throwing, so no half-made GPU instance is left.
   */
  CreatedMig create(MigStep.Create step) throws PrepareException;

  /**
   * Destroys the device's compute instances and GPU instance if they exist; one already gone is
   * fine. Switches MIG mode back off if this device switched it on and the GPU is left empty.
   */
  void destroy(CreatedMig mig) throws PrepareException;
}
