package dev.tessera.plugin.sharing;

import dev.tessera.api.DeviceName;
import dev.tessera.api.Quantities;
import dev.tessera.api.config.Sharing;
import dev.tessera.api.config.Sharing.TimeSliceInterval;
import dev.tessera.api.config.SharingStrategy;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides the sharing set-up of a claim's devices from what the checkpoint says other claims hold
 * (pure: no I/O). A GPU has one time-slice, so claims that time-slice it must agree on the
 * interval; an MPS device has one daemon, started for the first claim and stopped after the last;
 * MPS limits of the claims on a device must fit the device. A claim that cannot be honoured gets a
 * {@link PrepareException} before anything is changed. A device with admin access is handed over as
 * it is: it gets no set-up, and it is never counted as a holder, so it neither keeps a daemon or a
 * time-slice alive nor stops another claim from setting one up.
 */
public final class SharingPlanner {
  private static final int ALL_THREADS = 100;

  /**
   * The actions that set up the claim's devices, or why the claim cannot have them. Devices are
   * told apart by name, so the plan is made once, before any MIG device of the claim exists; an
   * action on a MIG device still to be made carries its UUID only once {@link #forMade} gives it.
   */
  public List<SharingAction> prepare(
      ClaimRef ref, List<PlannedDevice> plan, PreparedClaims checkpoint) throws PrepareException {
    refuseSeveralMpsDevices(ref, plan);
    var actions = new ArrayList<SharingAction>();
    for (PlannedDevice device : distinct(plan)) {
      if (device.adminAccess()) {
        continue;
      }
      List<Holder> others = holders(checkpoint, ref.uid(), device.pool(), device.name().value());
      switch (device.config().sharing()) {
        case Sharing.Exclusive e -> {}
        case Sharing.TimeSlicing t -> {
          refuseOtherStrategies(ref, device, others, SharingStrategy.TIME_SLICING);
          for (Holder other : others) {
            String theirs = other.device().settings().timeSliceInterval();
            if (!t.interval().name().equals(theirs)) {
              throw new PrepareException(
                  "claim %s asks for time-slice interval %s on GPU %s (%s), but claim %s holds it with interval %s; a GPU has one time-slice"
                      .formatted(
                          ref, t.interval(), device.name().value(), device.uuid(), other, theirs));
            }
          }
          if (others.isEmpty()) {
            actions.add(
                new SharingAction.SetTimeSlice(device.uuid(), device.name().value(), t.interval()));
          }
        }
        case Sharing.Mps m -> {
          refuseOtherStrategies(ref, device, others, SharingStrategy.MPS);
          checkLimits(ref, device, m, others);
          actions.add(
              new SharingAction.EnsureMps(
                  device.uuid(), device.name().value(), device.name() instanceof DeviceName.Gpu));
        }
      }
    }
    return List.copyOf(actions);
  }

  /**
   * The planned actions for the devices as made: each action names its device, and takes the
   * device's UUID from {@code made} (a MIG device planned before it existed has one only now).
   */
  public List<SharingAction> forMade(List<SharingAction> planned, List<PlannedDevice> made) {
    Map<String, String> uuids = new LinkedHashMap<>();
    made.forEach(d -> uuids.putIfAbsent(d.name().value(), d.uuid()));
    return planned.stream()
        .map(a -> uuids.containsKey(a.device()) ? a.withUuid(uuids.get(a.device())) : a)
        .toList();
  }

  /**
   * The actions that undo the claim's sharing set-up where no other claim needs it any more: the
   * time-slice goes back to the driver's default after the last time-sliced claim of a GPU, the
   * daemon stops after the last MPS claim of a device. Empty for a claim the checkpoint does not
   * hold.
   */
  public List<SharingAction> release(String claimUid, PreparedClaims checkpoint) {
    ClaimEntry entry = checkpoint.claims().get(claimUid);
    if (entry == null) {
      return List.of();
    }
    var actions = new ArrayList<SharingAction>();
    Map<String, PreparedDevice> byName = new LinkedHashMap<>();
    entry.devices().stream()
        .filter(d -> !d.adminAccess())
        .forEach(d -> byName.putIfAbsent(d.pool() + "/" + d.device(), d));
    for (PreparedDevice device : byName.values()) {
      if (!holders(checkpoint, claimUid, device.pool(), device.device()).isEmpty()) {
        continue;
      }
      switch (device.sharing()) {
        case TIME_SLICING ->
            actions.add(
                new SharingAction.SetTimeSlice(
                    device.uuid(), device.device(), TimeSliceInterval.Default));
        case MPS ->
            actions.add(
                new SharingAction.StopMps(device.uuid(), device.device(), wholeGpu(device)));
        case EXCLUSIVE -> {}
      }
    }
    return List.copyOf(actions);
  }

  /**
   * The MPS daemons the checkpoint's claims need, one per device: at start-up the running ones are
   * kept (not started twice), missing ones started, and any other stopped so none is leaked.
   */
  public List<SharingAction.EnsureMps> daemonsInUse(PreparedClaims checkpoint) {
    Map<String, SharingAction.EnsureMps> byUuid = new LinkedHashMap<>();
    for (ClaimEntry entry : checkpoint.claims().values()) {
      daemonsOf(entry).forEach(d -> byUuid.putIfAbsent(d.deviceUuid(), d));
    }
    return List.copyOf(byUuid.values());
  }

  /**
   * The MPS daemons one prepared claim needs: checked again when the kubelet asks to prepare a
   * claim that is already prepared, so a daemon that died since is started again.
   */
  public List<SharingAction.EnsureMps> daemonsOf(ClaimEntry entry) {
    Map<String, SharingAction.EnsureMps> byUuid = new LinkedHashMap<>();
    for (PreparedDevice device : entry.devices()) {
      if (device.sharing() == SharingStrategy.MPS && !device.adminAccess()) {
        byUuid.putIfAbsent(
            device.uuid(),
            new SharingAction.EnsureMps(device.uuid(), device.device(), wholeGpu(device)));
      }
    }
    return List.copyOf(byUuid.values());
  }

  /**
   * A process reaches one MPS control daemon (its {@code CUDA_MPS_PIPE_DIRECTORY}) and its limits
   * name device ordinals, while the plugin runs one daemon per device: a container given two MPS
   * devices of one claim would get two pipe directories and two limits for ordinal 0, of which only
   * one wins. Which containers get which of a claim's devices is not known here, so such a claim is
   * refused.
   */
  private static void refuseSeveralMpsDevices(ClaimRef ref, List<PlannedDevice> plan)
      throws PrepareException {
    List<PlannedDevice> mps =
        distinct(plan).stream().filter(d -> d.config().sharing() instanceof Sharing.Mps).toList();
    if (mps.size() > 1) {
      throw new PrepareException(
          "claim %s asks for MPS on %d devices (%s); a container can use one MPS control daemon and the plugin runs one per device, so a claim may share at most one device through MPS: use one claim per device"
              .formatted(
                  ref,
                  mps.size(),
                  String.join(", ", mps.stream().map(d -> d.name().value()).toList())));
    }
  }

  private static void refuseOtherStrategies(
      ClaimRef ref, PlannedDevice device, List<Holder> others, SharingStrategy strategy)
      throws PrepareException {
    for (Holder other : others) {
      if (strategy != other.device().sharing()) {
        throw new PrepareException(
            "claim %s asks for %s on %s (%s), but claim %s holds it with %s"
                .formatted(
                    ref,
                    strategy,
                    device.name().value(),
                    device.uuid(),
                    other,
                    other.device().sharing()));
      }
    }
  }

  /** The MPS limits of all claims on the device must add up to no more than the device has. */
  private static void checkLimits(
      ClaimRef ref, PlannedDevice device, Sharing.Mps mps, List<Holder> others)
      throws PrepareException {
    if (mps.defaultPinnedDeviceMemoryLimitBytes().isPresent()) {
      long mine = mps.defaultPinnedDeviceMemoryLimitBytes().getAsLong();
      long total = mine;
      var parts = new StringBuilder("this claim " + Quantities.formatBytes(mine));
      for (Holder other : others) {
        Long theirs = other.device().settings().pinnedMemoryBytes();
        if (theirs != null) {
          total += theirs;
          parts.append(", claim ").append(other).append(' ').append(Quantities.formatBytes(theirs));
        }
      }
      long capacity = device.memoryBytes();
      if (total > capacity) {
        throw new PrepareException(
            "claim %s: MPS pinned device memory limits on %s would add up to %s (%s), more than its %s"
                .formatted(
                    ref,
                    device.name().value(),
                    Quantities.formatBytes(total),
                    parts,
                    Quantities.formatBytes(capacity)));
      }
    }
    if (mps.defaultActiveThreadPercentage().isPresent()) {
      int mine = mps.defaultActiveThreadPercentage().getAsInt();
      int total = mine;
      var parts = new StringBuilder("this claim " + mine + "%");
      for (Holder other : others) {
        Integer theirs = other.device().settings().activeThreadPercentage();
        if (theirs != null) {
          total += theirs;
          parts.append(", claim ").append(other).append(' ').append(theirs).append('%');
        }
      }
      if (total > ALL_THREADS) {
        throw new PrepareException(
            "claim %s: MPS active thread percentages on %s would add up to %d%% (%s), more than 100%%"
                .formatted(ref, device.name().value(), total, parts));
      }
    }
  }

  private static boolean wholeGpu(PreparedDevice device) {
    return DeviceName.parse(device.device()) instanceof DeviceName.Gpu;
  }

  /** A claim's device may be listed once per request it serves; its set-up is one. */
  private static List<PlannedDevice> distinct(List<PlannedDevice> plan) {
    Map<String, PlannedDevice> byName = new LinkedHashMap<>();
    plan.forEach(d -> byName.putIfAbsent(d.pool() + "/" + d.name().value(), d));
    return List.copyOf(byName.values());
  }

  /**
   * The device of this pool and name as claims other than {@code claimUid} hold it; admin access
   * holds nothing.
   */
  private static List<Holder> holders(
      PreparedClaims checkpoint, String claimUid, String pool, String device) {
    var holders = new ArrayList<Holder>();
    checkpoint
        .claims()
        .forEach(
            (uid, entry) -> {
              if (uid.equals(claimUid)) {
                return;
              }
              entry.devices().stream()
                  .filter(
                      d -> d.pool().equals(pool) && d.device().equals(device) && !d.adminAccess())
                  .findFirst()
                  .ifPresent(d -> holders.add(new Holder(uid, entry, d)));
            });
    return holders;
  }

  /** Another claim's hold on a device; prints as the claim, for error messages. */
  private record Holder(String uid, ClaimEntry entry, PreparedDevice device) {
    @Override
    public String toString() {
      return entry.namespace() + "/" + entry.name() + " (" + uid + ")";
    }
  }
}
