package dev.tessera.plugin.mig;

import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.MigTarget;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.discovery.NvmlNames;
import dev.tessera.plugin.nvml.ComputeInstanceProfileInfo;
import dev.tessera.plugin.nvml.GpuInstanceInfo;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.nvml.NvmlException;
import dev.tessera.plugin.nvml.NvmlHandle.ComputeInstance;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import dev.tessera.plugin.nvml.NvmlHandle.GpuInstance;
import dev.tessera.plugin.nvml.NvmlReturn;
import dev.tessera.plugin.nvml.Placement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link MigHardware} through the {@link Nvml} port: the only place that changes MIG state. */
public final class NvmlMigHardware implements MigHardware {
  private static final Logger LOG = LoggerFactory.getLogger(NvmlMigHardware.class);

  private final Nvml nvml;

  public NvmlMigHardware(Nvml nvml) {
    this.nvml = nvml;
  }

  @Override
  public GpuMigState read(String gpuUuid) throws PrepareException {
    try {
      Device gpu = nvml.deviceByUuid(gpuUuid);
      MigMode mode = NvmlNames.migMode(nvml.migMode(gpu));
      if (mode != MigMode.ENABLED && mode != MigMode.DISABLE_PENDING_RESET) {
        return new GpuMigState(gpuUuid, mode, List.of());
      }
      Map<Long, String> migUuids = migUuids(gpu);
      var instances = new ArrayList<GpuMigState.Instance>();
      for (GpuInstance gi : gpuInstances(gpu)) {
        GpuInstanceInfo info = nvml.gpuInstanceInfo(gi);
        var cis = new ArrayList<GpuMigState.Compute>();
        for (ComputeInstance ci : computeInstances(gi)) {
          int ciId = nvml.computeInstanceInfo(ci).id();
          cis.add(new GpuMigState.Compute(ciId, migUuids.get(key(info.id(), ciId))));
        }
        instances.add(
            new GpuMigState.Instance(
                info.id(),
                info.profileId(),
                new MigPlacement(info.placement().start(), info.placement().size()),
                cis));
      }
      return new GpuMigState(gpuUuid, mode, instances);
    } catch (NvmlException e) {
      throw new PrepareException(
          "cannot read the MIG state of GPU " + gpuUuid + ": " + e.getMessage(), e);
    }
  }

  @Override
  public CreatedMig create(MigStep.Create step) throws PrepareException {
    MigTarget target = step.target();
    Device gpu;
    try {
      gpu = nvml.deviceByUuid(target.gpuUuid());
      if (step.enableMigMode()) {
        enableMigMode(gpu, target);
      }
    } catch (NvmlException e) {
      throw failed(target, "cannot switch the GPU into MIG mode", e);
    }
    GpuInstance gi;
    try {
      gi =
          nvml.createGpuInstance(
              gpu,
              target.profileId(),
              new Placement(target.placement().start(), target.placement().size()));
    } catch (NvmlException e) {
      disableIfEmpty(gpu, step.enableMigMode());
      throw failed(target, "cannot create the GPU instance", e);
    }
    try {
      ComputeInstance ci = nvml.createComputeInstance(gi, fullProfile(gi).id());
      int giId = nvml.gpuInstanceInfo(gi).id();
      int ciId = nvml.computeInstanceInfo(ci).id();
      String uuid = migUuids(gpu).get(key(giId, ciId));
      if (uuid == null) {
        throw new NvmlException(
            "nvmlDeviceGetMigDeviceHandleByIndex",
            NvmlReturn.NVML_ERROR_NOT_FOUND.code(),
            "no MIG device for GPU instance " + giId + " compute instance " + ciId);
      }
      LOG.atInfo()
          .addKeyValue("gpu.uuid", target.gpuUuid())
          .addKeyValue("device", target.device())
          .addKeyValue("gpuInstance", giId)
          .addKeyValue("computeInstance", ciId)
          .addKeyValue("mig.uuid", uuid)
          .log("created MIG device");
      return target.intent(step.enableMigMode()).made(giId, ciId, uuid);
    } catch (NvmlException e) {
      // No half-made GPU instance may stay behind: it would hold the slices and nobody owns it.
      try {
        destroyInstance(gi);
      } catch (NvmlException undo) {
        e.addSuppressed(undo);
      }
      disableIfEmpty(gpu, step.enableMigMode());
      throw failed(target, "cannot create its compute instance", e);
    }
  }

  @Override
  public void destroy(CreatedMig mig) throws PrepareException {
    try {
      Device gpu = nvml.deviceByUuid(mig.gpuUuid());
      if (!nvml.migMode(gpu).map(m -> m.currentEnabled()).orElse(false)) {
        return;
      }
      for (GpuInstance gi : gpuInstances(gpu)) {
        GpuInstanceInfo info = nvml.gpuInstanceInfo(gi);
        var instance =
            new GpuMigState.Instance(
                info.id(),
                info.profileId(),
                new MigPlacement(info.placement().start(), info.placement().size()),
                List.of());
        if (instance.is(mig, mig.gpuUuid())) {
          destroyInstance(gi);
          LOG.atInfo()
              .addKeyValue("gpu.uuid", mig.gpuUuid())
              .addKeyValue("device", mig.device())
              .addKeyValue("gpuInstance", info.id())
              .log("destroyed MIG device");
        }
      }
      disableIfEmpty(gpu, mig.enabledMigMode());
    } catch (NvmlException e) {
      throw new PrepareException(
          "cannot destroy MIG device "
              + mig.device()
              + " of GPU "
              + mig.gpuUuid()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** Tessera never resets a GPU: a mode that would need one is put back and refused. */
  private void enableMigMode(Device gpu, MigTarget target) throws PrepareException {
    int activation = nvml.setMigMode(gpu, true);
    if (activation != NvmlReturn.NVML_SUCCESS.code()) {
      nvml.setMigMode(gpu, false);
      throw new PrepareException(
          "MIG device "
              + target.device()
              + ": GPU "
              + target.gpuUuid()
              + " is not in MIG mode and enabling it needs a GPU reset ("
              + NvmlReturn.nameOf(activation)
              + "); Tessera never resets a GPU, so an admin must enable MIG mode on it first");
    }
    LOG.atInfo().addKeyValue("gpu.uuid", target.gpuUuid()).log("enabled MIG mode");
  }

  /** Switches MIG mode back off where this plugin switched it on and no instance is left. */
  private void disableIfEmpty(Device gpu, boolean enabledByUs) {
    if (!enabledByUs) {
      return;
    }
    try {
      if (gpuInstances(gpu).isEmpty()) {
        nvml.setMigMode(gpu, false);
        LOG.atInfo().log("disabled MIG mode again; no GPU instance is left");
      }
    } catch (NvmlException e) {
      LOG.atWarn().setCause(e).log("cannot switch MIG mode back off");
    }
  }

  private void destroyInstance(GpuInstance gi) {
    for (ComputeInstance ci : computeInstances(gi)) {
      nvml.destroyComputeInstance(ci);
    }
    nvml.destroyGpuInstance(gi);
  }

  /** The compute profile that spans the whole GPU instance: the one with the most slices. */
  private ComputeInstanceProfileInfo fullProfile(GpuInstance gi) {
    ComputeInstanceProfileInfo best = null;
    for (int index = 0; index < Nvml.COMPUTE_INSTANCE_PROFILE_COUNT; index++) {
      Optional<ComputeInstanceProfileInfo> info = nvml.computeInstanceProfileInfo(gi, index);
      if (info.isPresent() && (best == null || info.get().sliceCount() > best.sliceCount())) {
        best = info.get();
      }
    }
    if (best == null) {
      throw new NvmlException(
          "nvmlGpuInstanceGetComputeInstanceProfileInfoV",
          NvmlReturn.NVML_ERROR_NOT_SUPPORTED.code(),
          "the GPU instance offers no compute instance profile");
    }
    return best;
  }

  private List<GpuInstance> gpuInstances(Device gpu) {
    Set<Integer> profileIds = new LinkedHashSet<>();
    for (int index = 0; index < Nvml.GPU_INSTANCE_PROFILE_COUNT; index++) {
      nvml.gpuInstanceProfileInfo(gpu, index).ifPresent(p -> profileIds.add(p.id()));
    }
    var all = new ArrayList<GpuInstance>();
    for (int profileId : profileIds) {
      all.addAll(nvml.gpuInstances(gpu, profileId));
    }
    return all;
  }

  private List<ComputeInstance> computeInstances(GpuInstance gi) {
    Set<Integer> profileIds = new LinkedHashSet<>();
    for (int index = 0; index < Nvml.COMPUTE_INSTANCE_PROFILE_COUNT; index++) {
      nvml.computeInstanceProfileInfo(gi, index).ifPresent(p -> profileIds.add(p.id()));
    }
    var all = new ArrayList<ComputeInstance>();
    for (int profileId : profileIds) {
      all.addAll(nvml.computeInstances(gi, profileId));
    }
    return all;
  }

  /** MIG device UUIDs by (GPU instance, compute instance). */
  private Map<Long, String> migUuids(Device gpu) {
    Map<Long, String> uuids = new HashMap<>();
    int slots = nvml.maxMigDeviceCount(gpu);
    for (int index = 0; index < slots; index++) {
      nvml.migDeviceByIndex(gpu, index)
          .ifPresent(
              mig ->
                  uuids.put(
                      key(nvml.gpuInstanceId(mig), nvml.computeInstanceId(mig)), nvml.uuid(mig)));
    }
    return uuids;
  }

  private static long key(int gi, int ci) {
    return ((long) gi << 32) | (ci & 0xFFFFFFFFL);
  }

  private static PrepareException failed(MigTarget target, String what, NvmlException e) {
    return new PrepareException(
        "MIG device "
            + target.device()
            + " of GPU "
            + target.gpuUuid()
            + ": "
            + what
            + ": "
            + e.getMessage(),
        e);
  }
}
