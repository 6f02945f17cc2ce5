package dev.tessera.plugin.mig;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.MigTarget;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MIG part of preparing a claim: reads the GPUs' MIG state now, lets {@link MigPlanner} decide,
 * makes and destroys devices through {@link MigHardware}, and at start-up cleans up what a plugin
 * that died part-way left. {@code DeviceState} records the intents before {@link #apply} acts.
 */
public final class DynamicMig {
  private static final Logger LOG = LoggerFactory.getLogger(DynamicMig.class);

  private final MigPlanner planner;
  private final MigHardware hardware;
  private final Supplier<NodeInventory> inventory;

  public DynamicMig(MigPlanner planner, MigHardware hardware, Supplier<NodeInventory> inventory) {
    this.planner = planner;
    this.hardware = hardware;
    this.inventory = inventory;
  }

  /**
   * The claim's MIG work.
   *
   * @param devices the claim's devices, MIG devices that exist resolved to them as they are now
   * @param creates the MIG devices to create
   */
  public record Plan(List<PlannedDevice> devices, List<MigStep.Create> creates) {
    public Plan {
      devices = List.copyOf(devices);
      creates = List.copyOf(creates);
    }

    /** The devices that exist already (what may be recorded before anything is made). */
    public List<PlannedDevice> existing() {
      return devices.stream().filter(d -> !toCreate(d)).toList();
    }

    /** The records to checkpoint before acting. */
    public List<CreatedMig> intents() {
      return creates.stream().map(c -> c.target().intent(c.enableMigMode())).toList();
    }

    private boolean toCreate(PlannedDevice device) {
      return creates.stream().anyMatch(c -> c.target().device().equals(device.name().value()));
    }
  }

  /** The claim's devices, all resolved, and the MIG devices made for it. */
  public record Made(List<PlannedDevice> devices, List<CreatedMig> created) {
    public Made {
      devices = List.copyOf(devices);
      created = List.copyOf(created);
    }
  }

  /**
   * Decides the claim's MIG work. A MIG device with admin access is never created: it is resolved
   * to the MIG device at its placement as NVML reports it now (whoever made it), and where there is
   * none it stays unresolved and is handed over as its GPU (the GPU's device node and MIG monitor
   * capability, see {@code DeviceEditsResolver}), so a monitoring claim of every placement of a
   * dynamic-MIG node sees the GPUs as they are instead of failing or reshaping them.
   */
  public Plan plan(ClaimRef ref, List<PlannedDevice> devices, PreparedClaims checkpoint)
      throws PrepareException {
    devices = asTheyAre(ref, devices);
    Map<String, MigTarget> targets = new LinkedHashMap<>();
    for (PlannedDevice device : devices) {
      if (device.name() instanceof DeviceName.Mig && !device.adminAccess()) {
        targets.putIfAbsent(device.name().value(), target(ref, device));
      }
    }
    if (targets.isEmpty()) {
      return new Plan(devices, List.of());
    }
    Map<String, GpuMigState> states = new LinkedHashMap<>();
    for (MigTarget target : targets.values()) {
      if (!states.containsKey(target.gpuUuid())) {
        states.put(target.gpuUuid(), hardware.read(target.gpuUuid()));
      }
    }
    Map<CreatedMig, String> others = new LinkedHashMap<>();
    checkpoint
        .claims()
        .forEach(
            (uid, entry) -> {
              if (!uid.equals(ref.uid())) {
                String owner = entry.namespace() + "/" + entry.name() + " (" + uid + ")";
                entry.createdMig().forEach(c -> others.put(c, owner));
              }
            });
    List<MigStep> steps =
        planner.plan(ref, List.copyOf(targets.values()), Map.copyOf(states), others);
    Map<String, MigDevice> existing = new LinkedHashMap<>();
    var creates = new ArrayList<MigStep.Create>();
    for (MigStep step : steps) {
      switch (step) {
        case MigStep.UseExisting use -> existing.put(use.target().device(), use.device());
        case MigStep.Create create -> creates.add(create);
      }
    }
    var resolved =
        devices.stream()
            .map(
                d ->
                    existing.containsKey(d.name().value())
                        ? d.withMigDevice(existing.get(d.name().value()))
                        : d)
            .toList();
    return new Plan(resolved, creates);
  }

  /** The claim's devices, those with admin access resolved to the MIG devices that exist now. */
  private List<PlannedDevice> asTheyAre(ClaimRef ref, List<PlannedDevice> devices)
      throws PrepareException {
    Map<String, GpuMigState> states = new LinkedHashMap<>();
    var resolved = new ArrayList<PlannedDevice>();
    for (PlannedDevice device : devices) {
      if (!(device.name() instanceof DeviceName.Mig) || !device.adminAccess()) {
        resolved.add(device);
        continue;
      }
      MigTarget target = target(ref, device);
      GpuMigState state = states.get(target.gpuUuid());
      if (state == null) {
        state = hardware.read(target.gpuUuid());
        states.put(target.gpuUuid(), state);
      }
      resolved.add(device.withMigDevice(MigPlanner.existing(target, state).orElse(null)));
    }
    return resolved;
  }

  /** The MIG device the claim planner resolved the name to. */
  private static MigTarget target(ClaimRef ref, PlannedDevice device) throws PrepareException {
    if (device.migTarget() == null) {
      throw new PrepareException(
          "claim " + ref + ": device " + device.name().value() + " is not on this node");
    }
    return device.migTarget();
  }

  /**
   * Makes the planned MIG devices. If one cannot be made, those made before it are destroyed again
   * and the error is thrown: nothing of the claim's MIG work is left.
   */
  public Made apply(Plan plan) throws PrepareException {
    var created = new ArrayList<CreatedMig>();
    try {
      for (MigStep.Create step : plan.creates()) {
        created.add(hardware.create(step));
      }
    } catch (PrepareException e) {
      try {
        destroy(created);
      } catch (PrepareException undo) {
        e.addSuppressed(undo);
      }
      throw e;
    }
    Map<String, MigDevice> made = new LinkedHashMap<>();
    for (int i = 0; i < created.size(); i++) {
      MigTarget target = plan.creates().get(i).target();
      CreatedMig c = created.get(i);
      made.put(
          c.device(),
          new MigDevice(
              c.uuid(),
              c.gpuInstanceId(),
              c.computeInstanceId(),
              c.profileId(),
              c.profile(),
              c.placement(),
              target.memoryBytes()));
    }
    var devices =
        plan.devices().stream()
            .map(
                d ->
                    made.containsKey(d.name().value())
                        ? d.withMigDevice(made.get(d.name().value()))
                        : d)
            .toList();
    return new Made(devices, created);
  }

  /**
   * The checkpoint with the MIG mode that claim {@code uid} switched on handed to another claim
   * with a MIG device made on the same GPU (pure). Only the claim that switched a GPU into MIG mode
   * switches it off, once the GPU has no instance left; when that claim goes first, another claim's
   * device is still there, so without the hand-over the GPU stayed in MIG mode after the last one
   * went (and a whole-GPU offering then hid it, or handed out a GPU that CUDA cannot use whole).
   */
  public static PreparedClaims handOverMigMode(String uid, PreparedClaims checkpoint) {
    ClaimEntry leaving = checkpoint.claims().get(uid);
    if (leaving == null) {
      return checkpoint;
    }
    PreparedClaims next = checkpoint;
    var kept = new ArrayList<CreatedMig>();
    for (CreatedMig mine : leaving.createdMig()) {
      String heir = mine.enabledMigMode() ? heir(uid, mine.gpuUuid(), next) : null;
      if (heir == null) {
        kept.add(mine);
        continue;
      }
      ClaimEntry entry = next.claims().get(heir);
      var theirs = new ArrayList<>(entry.createdMig());
      for (int i = 0; i < theirs.size(); i++) {
        if (theirs.get(i).gpuUuid().equals(mine.gpuUuid())) {
          theirs.set(i, theirs.get(i).withEnabledMigMode(true));
          break;
        }
      }
      next = next.with(heir, entry.withCreatedMig(theirs));
      kept.add(mine.withEnabledMigMode(false));
    }
    return next.with(uid, leaving.withCreatedMig(kept));
  }

  /** Another claim with a MIG device made on the GPU, or null. */
  private static String heir(String uid, String gpuUuid, PreparedClaims checkpoint) {
    return checkpoint.claims().entrySet().stream()
        .filter(e -> !e.getKey().equals(uid))
        .filter(e -> e.getValue().createdMig().stream().anyMatch(m -> m.gpuUuid().equals(gpuUuid)))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElse(null);
  }

  /** Destroys the devices, last made first; tries them all and throws the first failure. */
  public void destroy(List<CreatedMig> created) throws PrepareException {
    PrepareException first = null;
    for (CreatedMig mig : created.reversed()) {
      try {
        hardware.destroy(mig);
      } catch (PrepareException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * At start-up: destroys the MIG devices of claims whose prepare never completed (the plugin died
   * part-way, or the node rebooted) and returns the checkpoint without them; keeps those of
   * completed claims; leaves every other MIG device alone (an admin's) and says so in the log.
   */
  public PreparedClaims reconcile(PreparedClaims checkpoint) throws PrepareException {
    PreparedClaims next = checkpoint;
    var kept = new ArrayList<CreatedMig>();
    for (Map.Entry<String, ClaimEntry> e : checkpoint.claims().entrySet()) {
      ClaimEntry entry = e.getValue();
      if (entry.createdMig().isEmpty()) {
        continue;
      }
      if (entry.state() == ClaimState.PrepareCompleted) {
        kept.addAll(entry.createdMig());
        continue;
      }
      LOG.atWarn()
          .addKeyValue("claim.uid", e.getKey())
          .addKeyValue("devices", entry.createdMig().size())
          .log("destroying MIG devices of a claim whose prepare did not complete");
      destroy(entry.createdMig());
      next = next.with(e.getKey(), entry.withCreatedMig(List.of()));
    }
    for (Gpu gpu : inventory.get().gpus()) {
      if (gpu.migMode() == MigMode.UNSUPPORTED) {
        continue;
      }
      GpuMigState state = hardware.read(gpu.uuid());
      for (GpuMigState.Instance instance : state.instances()) {
        if (kept.stream().noneMatch(c -> instance.is(c, gpu.uuid()))) {
          LOG.atInfo()
              .addKeyValue("gpu.uuid", gpu.uuid())
              .addKeyValue("gpuInstance", instance.gpuInstanceId())
              .addKeyValue("profileId", instance.profileId())
              .addKeyValue("placementStart", instance.placement().start())
              .log("MIG device not created by Tessera; leaving it alone");
        }
      }
    }
    return next;
  }
}
