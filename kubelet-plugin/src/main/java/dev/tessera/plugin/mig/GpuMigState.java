package dev.tessera.plugin.mig;

import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.CreatedMig;
import java.util.List;

/**
 * A GPU's MIG state as NVML reports it now (not as discovered at start-up: instances come and go
 * with claims).
 */
public record GpuMigState(String gpuUuid, MigMode mode, List<Instance> instances) {
  public GpuMigState {
    instances = List.copyOf(instances);
  }

  /** A GPU instance with its compute instances. */
  public record Instance(
      int gpuInstanceId, int profileId, MigPlacement placement, List<Compute> computeInstances) {
    public Instance {
      computeInstances = List.copyOf(computeInstances);
    }

    /**
     * Whether this instance, on GPU {@code gpu}, is the created device {@code mig} (by id once
     * known).
     */
    public boolean is(CreatedMig mig, String gpu) {
      return mig.gpuUuid().equals(gpu)
          && profileId == mig.profileId()
          && placement.start() == mig.placement().start()
          && (mig.gpuInstanceId() == null || mig.gpuInstanceId() == gpuInstanceId);
    }
  }

  /**
   * A compute instance and the MIG device it makes.
   *
   * @param uuid the MIG device's UUID
   */
  public record Compute(int computeInstanceId, String uuid) {}
}
