package dev.tessera.plugin.mig;

import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.MigTarget;
import dev.tessera.plugin.claim.PrepareException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * MIG state in memory for unit tests: GPU instance ids follow the driver's numbering for size-1
 * placements (7 + start), and {@link #failNextCreate} makes the next create fail.
 */
public final class FakeMigHardware implements MigHardware {
  public final Map<String, MigMode> modes = new HashMap<>();
  public final Map<String, List<GpuMigState.Instance>> instances = new HashMap<>();
  public final List<String> calls = new ArrayList<>();
  private boolean failNextCreate;

  public FakeMigHardware gpu(String uuid, MigMode mode, GpuMigState.Instance... existing) {
    modes.put(uuid, mode);
    instances.put(uuid, new ArrayList<>(List.of(existing)));
    return this;
  }

  public void failNextCreate() {
    failNextCreate = true;
  }

  @Override
  public GpuMigState read(String gpuUuid) {
    return new GpuMigState(
        gpuUuid, modes.getOrDefault(gpuUuid, MigMode.UNSUPPORTED), instances.get(gpuUuid));
  }

  @Override
  public CreatedMig create(MigStep.Create step) throws PrepareException {
    MigTarget t = step.target();
    calls.add("create " + t.device());
    if (failNextCreate) {
      failNextCreate = false;
      throw new PrepareException("injected: cannot create " + t.device());
    }
    if (step.enableMigMode()) {
      modes.put(t.gpuUuid(), MigMode.ENABLED);
    }
    int gi = 7 + t.placement().start();
    String uuid = "MIG-created-" + gi;
    instances
        .get(t.gpuUuid())
        .add(
            new GpuMigState.Instance(
                gi, t.profileId(), t.placement(), List.of(new GpuMigState.Compute(0, uuid))));
    return t.intent(step.enableMigMode()).made(gi, 0, uuid);
  }

  @Override
  public void destroy(CreatedMig mig) {
    calls.add("destroy " + mig.device());
    instances.get(mig.gpuUuid()).removeIf(i -> i.is(mig, mig.gpuUuid()));
  }

  /** A GPU instance with one compute instance. */
  public static GpuMigState.Instance instance(int gi, int profileId, int start, int size) {
    return new GpuMigState.Instance(
        gi,
        profileId,
        new MigPlacement(start, size),
        List.of(new GpuMigState.Compute(0, "MIG-admin-" + gi)));
  }
}
