package dev.tessera.plugin.mig;

import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.MigTarget;
import dev.tessera.plugin.claim.PrepareException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides how each MIG device of a claim comes to exist (pure: the GPUs' MIG state is read before,
 * and nothing is changed here). A device that already exists and is not another claim's is used as
 * it is; a free placement is created; a GPU not in MIG mode is switched to it (whether that takes
 * effect without a reset only NVML can say, when asked); a placement that overlaps an instance, a
 * GPU that cannot do MIG or waits for a reset, and an instance split into several compute instances
 * are refused with the reason, before anything is touched.
 */
public final class MigPlanner {

  /**
   * @param targets the claim's MIG devices, one per device name
   * @param states the MIG state now of every GPU a target is on, by GPU UUID
   * @param othersCreated the MIG devices this plugin created for other claims, with their claims
   */
  public List<MigStep> plan(
      ClaimRef ref,
      List<MigTarget> targets,
      Map<String, GpuMigState> states,
      Map<CreatedMig, String> othersCreated)
      throws PrepareException {
    var steps = new ArrayList<MigStep>();
    Map<String, List<MigPlacement>> planned = new LinkedHashMap<>();
    Set<String> enabling = new HashSet<>();
    for (MigTarget target : targets) {
      GpuMigState state = states.get(target.gpuUuid());
      if (state == null) {
        throw error(ref, target, "the GPU's MIG state could not be read");
      }
      List<MigPlacement> mine = planned.computeIfAbsent(target.gpuUuid(), g -> new ArrayList<>());
      for (MigPlacement other : mine) {
        if (target.overlaps(other)) {
          throw error(
              ref, target, "it overlaps another MIG device of the same claim at " + show(other));
        }
      }
      steps.add(step(ref, target, state, othersCreated, enabling));
      mine.add(target.placement());
    }
    return List.copyOf(steps);
  }

  private static MigStep step(
      ClaimRef ref,
      MigTarget target,
      GpuMigState state,
      Map<CreatedMig, String> othersCreated,
      Set<String> enabling)
      throws PrepareException {
    return switch (state.mode()) {
      case UNSUPPORTED -> throw error(ref, target, "the GPU does not support MIG");
      case ENABLE_PENDING_RESET, DISABLE_PENDING_RESET ->
          throw error(
              ref,
              target,
              "the GPU's MIG mode changes at its next reset ("
                  + state.mode()
                  + "); Tessera never resets a GPU, so an admin must reset it or revert the change");
      // Only the first device of a claim on the GPU switches the mode.
      case DISABLED -> new MigStep.Create(target, enabling.add(target.gpuUuid()));
      case ENABLED -> onMigGpu(ref, target, state, othersCreated);
    };
  }

  private static MigStep onMigGpu(
      ClaimRef ref, MigTarget target, GpuMigState state, Map<CreatedMig, String> othersCreated)
      throws PrepareException {
    for (GpuMigState.Instance instance : state.instances()) {
      boolean same =
          instance.profileId() == target.profileId()
              && instance.placement().equals(target.placement());
      Optional<String> owner = owner(state.gpuUuid(), instance, othersCreated);
      if (same && owner.isPresent()) {
        throw error(ref, target, "it was created for claim " + owner.get() + " and is in use");
      }
      if (same) {
        return useExisting(ref, target, instance);
      }
      if (target.overlaps(instance.placement())) {
        throw error(
            ref,
            target,
            "its placement overlaps GPU instance "
                + instance.gpuInstanceId()
                + " (profile id "
                + instance.profileId()
                + " at "
                + show(instance.placement())
                + ", "
                + owner.map(c -> "created for claim " + c).orElse("not created by Tessera")
                + ")");
      }
    }
    return new MigStep.Create(target, false);
  }

  /**
   * A GPU instance someone else made at exactly this placement is used if it is one MIG device; it
   * is theirs, so it is never destroyed.
   */
  private static MigStep useExisting(ClaimRef ref, MigTarget target, GpuMigState.Instance instance)
      throws PrepareException {
    if (instance.computeInstances().size() != 1) {
      throw error(
          ref,
          target,
          "GPU instance "
              + instance.gpuInstanceId()
              + " exists there (not created by Tessera) with "
              + instance.computeInstances().size()
              + " compute instances; a claim gets a GPU instance with exactly one");
    }
    return new MigStep.UseExisting(target, device(target, instance));
  }

  /** The MIG device an instance of one compute instance at the target's placement makes. */
  private static MigDevice device(MigTarget target, GpuMigState.Instance instance) {
    GpuMigState.Compute ci = instance.computeInstances().get(0);
    return new MigDevice(
        ci.uuid(),
        instance.gpuInstanceId(),
        ci.computeInstanceId(),
        target.profileId(),
        target.profile(),
        target.placement(),
        target.memoryBytes());
  }

  /**
   * The MIG device at the target's placement as it is now, whoever made it: a GPU instance of the
   * target's profile there with one compute instance. Empty when there is none (or the GPU is not
   * in MIG mode), or when the instance is split into several compute instances (no one MIG device).
   */
  public static Optional<MigDevice> existing(MigTarget target, GpuMigState state) {
    if (state.mode() != MigMode.ENABLED) {
      return Optional.empty();
    }
    return state.instances().stream()
        .filter(i -> i.profileId() == target.profileId())
        .filter(i -> i.placement().equals(target.placement()))
        .filter(i -> i.computeInstances().size() == 1)
        .findFirst()
        .map(i -> device(target, i));
  }

  private static Optional<String> owner(
      String gpuUuid, GpuMigState.Instance instance, Map<CreatedMig, String> othersCreated) {
    return othersCreated.entrySet().stream()
        .filter(e -> instance.is(e.getKey(), gpuUuid))
        .map(Map.Entry::getValue)
        .findFirst();
  }

  private static String show(MigPlacement p) {
    return "slices " + p.start() + ".." + (p.start() + p.size() - 1);
  }

  private static PrepareException error(ClaimRef ref, MigTarget target, String why) {
    return new PrepareException(
        "claim "
            + ref
            + ": MIG device "
            + target.device()
            + " ("
            + target.profile()
            + " at "
            + show(target.placement())
            + " of GPU "
            + target.gpuUuid()
            + ") cannot be prepared: "
            + why);
  }
}
