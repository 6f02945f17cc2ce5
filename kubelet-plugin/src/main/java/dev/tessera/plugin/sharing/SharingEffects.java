package dev.tessera.plugin.sharing;

import dev.tessera.plugin.claim.PrepareException;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Carries out {@link SharingAction}s on the node: GPU settings and MPS daemons. */
public final class SharingEffects {
  private static final Logger LOG = LoggerFactory.getLogger(SharingEffects.class);

  private final NvidiaSmi smi;
  private final MpsDaemons mps;

  public SharingEffects(NvidiaSmi smi, MpsDaemons mps) {
    this.smi = smi;
    this.mps = mps;
  }

  public MpsPaths mpsPaths() {
    return mps.paths();
  }

  /** Applies the actions in order; the first that fails stops the rest and is the error. */
  public void apply(List<? extends SharingAction> actions) throws PrepareException {
    for (SharingAction action : actions) {
      try {
        apply(action);
      } catch (IOException e) {
        throw new PrepareException(
            "device " + action.device() + ": cannot " + describe(action) + ": " + e.getMessage(),
            e);
      }
    }
  }

  /**
   * At start-up: keeps the daemons the checkpoint's claims need (starting one that is missing, as
   * after a reboot) and stops every other daemon this plugin left behind.
   */
  public void reconcile(List<SharingAction.EnsureMps> wanted) throws PrepareException {
    apply(wanted);
    Set<String> keep = new HashSet<>();
    wanted.forEach(w -> keep.add(w.deviceUuid()));
    try {
      for (String uuid : mps.known()) {
        if (!keep.contains(uuid)) {
          LOG.atWarn()
              .addKeyValue("device.uuid", uuid)
              .log("stopping MPS daemon no prepared claim uses");
          mps.stop(uuid);
          restoreComputeMode(uuid);
        }
      }
    } catch (IOException e) {
      throw new PrepareException("cannot stop unused MPS daemons: " + e.getMessage(), e);
    }
  }

  /**
   * A daemon under our directory was started by this plugin, which switched its GPU to {@code
   * EXCLUSIVE_PROCESS}; no prepared claim needs that any more. A MIG device has no compute mode of
   * its own. A GPU that is gone (or a tool that fails) is logged, not fatal: the start-up goes on.
   */
  private void restoreComputeMode(String uuid) {
    if (!uuid.startsWith("GPU-")) {
      return;
    }
    try {
      smi.setComputeMode(uuid, "DEFAULT");
    } catch (IOException e) {
      LOG.atWarn()
          .addKeyValue("device.uuid", uuid)
          .setCause(e)
          .log("cannot restore the compute mode of a GPU whose unused MPS daemon was stopped");
    }
  }

  private void apply(SharingAction action) throws IOException {
    switch (action) {
      case SharingAction.SetTimeSlice t -> {
        // NVIDIA's driver resets the compute mode first: a time-sliced GPU is shared by processes.
        smi.setComputeMode(t.gpuUuid(), "DEFAULT");
        smi.setTimeSlice(t.gpuUuid(), t.interval());
      }
      case SharingAction.EnsureMps m -> {
        if (!mps.running(m.deviceUuid())) {
          if (m.wholeGpu()) {
            smi.setComputeMode(m.deviceUuid(), "EXCLUSIVE_PROCESS");
          }
          mps.start(m.deviceUuid());
        }
      }
      case SharingAction.StopMps m -> {
        mps.stop(m.deviceUuid());
        if (m.wholeGpu()) {
          smi.setComputeMode(m.deviceUuid(), "DEFAULT");
        }
      }
    }
  }

  private static String describe(SharingAction action) {
    return switch (action) {
      case SharingAction.SetTimeSlice t -> "set time-slice " + t.interval();
      case SharingAction.EnsureMps m -> "start MPS control daemon";
      case SharingAction.StopMps m -> "stop MPS control daemon";
    };
  }
}
