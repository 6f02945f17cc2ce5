package dev.tessera.plugin.prepare;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.cdi.CdiSpecBuilder;
import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimEvent;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.claim.SharingSettings;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import dev.tessera.plugin.mig.DynamicMig;
import dev.tessera.plugin.sharing.SharingAction;
import dev.tessera.plugin.sharing.SharingEffects;
import dev.tessera.plugin.sharing.SharingPlanner;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares and unprepares the claims of this node, one at a time under the node lock ({@link
 * NodeClaims}). A prepare reads the state, plans everything once (the devices, their MIG work,
 * their sharing set-up), records its intent in the checkpoint (started, before any device work or
 * CDI file exists), acts, and records the result (completed); any failure rolls back what was done
 * ({@link ClaimRollback}) so nothing is left half made. Start-up is {@link StartupRecovery}'s.
 *
 * <p>A claim that needs no device work (no MIG device to make, no sharing to set up: a whole GPU, a
 * MIG device that exists, admin access) records only its result: one durable checkpoint write
 * instead of two on the kubelet's path. Nothing needs the intent there: the one thing such a
 * prepare makes before its result is recorded is the CDI spec, and a spec that no checkpointed
 * claim accounts for is removed at start-up, and by the claim's unprepare or next prepare.
 */
public final class DeviceState {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceState.class);

  private final ClaimSource claims;
  private final ClaimPlanner planner;
  private final Supplier<NodeInventory> inventory;
  private final CdiSpecBuilder cdiBuilder;
  private final DeviceEditsResolver deviceEdits;
  private final CdiSpecWriter cdiWriter;
  private final SharingPlanner sharingPlanner;
  private final SharingEffects sharing;
  private final DynamicMig mig;
  private final NodeClaims node;
  private final ClaimRollback rollback;
  private final ClaimEvents events;
  private final ClaimHolders holders;

  /** Without Events or holders (tests of prepare alone). */
  public DeviceState(
      ClaimSource claims,
      ClaimPlanner planner,
      Supplier<NodeInventory> inventory,
      CdiSpecBuilder cdiBuilder,
      DeviceEditsResolver deviceEdits,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      NodeClaims node,
      ClaimRollback rollback) {
    this(
        claims,
        planner,
        inventory,
        cdiBuilder,
        deviceEdits,
        cdiWriter,
        sharingPlanner,
        sharing,
        mig,
        node,
        rollback,
        (ref, event) -> {},
        (now, uid, pods) -> {});
  }

  public DeviceState(
      ClaimSource claims,
      ClaimPlanner planner,
      Supplier<NodeInventory> inventory,
      CdiSpecBuilder cdiBuilder,
      DeviceEditsResolver deviceEdits,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      NodeClaims node,
      ClaimRollback rollback,
      ClaimEvents events,
      ClaimHolders holders) {
    this.claims = claims;
    this.planner = planner;
    this.inventory = inventory;
    this.cdiBuilder = cdiBuilder;
    this.deviceEdits = deviceEdits;
    this.cdiWriter = cdiWriter;
    this.sharingPlanner = sharingPlanner;
    this.sharing = sharing;
    this.mig = mig;
    this.node = node;
    this.rollback = rollback;
    this.events = events;
    this.holders = holders;
  }

  /**
   * Everything a prepare will do, decided before anything is written: a claim whose MIG devices or
   * sharing cannot be honoured changes nothing.
   *
   * @param mig the claim's devices (existing MIG devices resolved) and the MIG devices to make
   * @param sharing the sharing set-up, keyed by device name (a MIG device to be made gets its UUID
   *     once made)
   */
  private record Plan(DynamicMig.Plan mig, List<SharingAction> sharing) {}

  /**
   * The devices prepared for the claim; the same answer again when it is already prepared. A
   * failure is also told as an Event on the claim, with the same message the kubelet gets.
   */
  public List<PreparedDevice> prepare(ClaimRef ref) throws PrepareException {
    try {
      return prepareLocked(ref);
    } catch (PrepareException | RuntimeException e) {
      events.record(ref, new ClaimEvent.PrepareFailed(e.getMessage()));
      // A holders write made while it was started would otherwise show it until the next change.
      holders.changed(node.current(), ref.uid(), List.of());
      throw e;
    }
  }

  private List<PreparedDevice> prepareLocked(ClaimRef ref) throws PrepareException {
    try (var held = node.lock();
        var mdc = ClaimLogContext.of(ref)) {
      // Read the state.
      ClaimEntry existing = node.refresh().claims().get(ref.uid());
      if (existing != null && existing.state() == ClaimState.PrepareCompleted) {
        LOG.debug("claim already prepared");
        // The kubelet asks again, e.g. after a container restart: a daemon that died since is
        // started again (a no-op when it runs).
        sharing.apply(sharingPlanner.daemonsOf(existing));
        return existing.devices();
      }
      if (existing != null) {
        LOG.info("claim was started but not completed; rolling back before preparing again");
        rollback.rollBack(ref);
      }
      ResourceClaim claim =
          claims
              .get(ref.namespace(), ref.name())
              .orElseThrow(
                  () -> new PrepareException("claim " + ref + " not found in the API server"));
      // Plan everything once.
      PreparedClaims before = node.current();
      Plan plan = plan(ref, claim, before);
      // Record the intent: MIG devices still to be made as intents only (no UUID yet).
      List<CreatedMig> created = plan.mig().intents();
      List<PreparedDevice> prepared = prepared(ref, plan.mig().existing());
      List<SharingAction> applied = plan.sharing();
      if (!created.isEmpty() || !applied.isEmpty()) {
        record(ref, ClaimState.PrepareStarted, prepared, created);
      }
      try {
        // Act.
        List<PlannedDevice> devices = plan.mig().devices();
        if (!created.isEmpty()) {
          DynamicMig.Made made = mig.apply(plan.mig());
          devices = made.devices();
          created = made.created();
          prepared = prepared(ref, devices);
          // What was made, with its ids, so a rollback finds exactly it.
          record(ref, ClaimState.PrepareStarted, prepared, created);
        }
        applied = sharingPlanner.forMade(plan.sharing(), devices);
        sharing.apply(applied);
        cdiWriter.write(ref.uid(), cdiBuilder.build(ref.uid(), deviceEdits.resolve(devices)));
        // Record the result.
        record(ref, ClaimState.PrepareCompleted, prepared, created);
      } catch (IOException | PrepareException | RuntimeException e) {
        LOG.atWarn().setCause(e).log("prepare failed; rolling back");
        rollback.rollBack(ref);
        throw e instanceof PrepareException p
            ? p
            : new PrepareException("claim " + ref + ": prepare failed: " + e.getMessage(), e);
      }
      claims.reportPrepared(ref, prepared);
      for (ClaimEvent event :
          PrepareStory.prepared(ref.uid(), prepared, created, applied, before)) {
        events.record(ref, event);
      }
      holders.changed(node.current(), ref.uid(), pods(claim));
      logAdminAccess(ref, prepared);
      LOG.atInfo().addKeyValue("devices", prepared.size()).log("claim prepared");
      return prepared;
    }
  }

  /**
   * Plans {@code claim} and renders what preparing it would record and write, none of it written,
   * applied or sent: the start-up's rehearsal of a prepare, before the plugin registers (decision
   * 65). Code run for the first time costs more than its work: the JDK links each pattern-matching
   * {@code switch} over a sealed type and each serializable lambda on first use, and Jackson builds
   * its serializers for the checkpoint's records; the AOT cache holds none of that. A rehearsal
   * pays it off the kubelet's clock.
   *
   * <p>Planned against an empty checkpoint and without the node lock: it reads the inventory and
   * nothing of the node's claims, so it can run beside the start-up's recovery. A claim whose MIG
   * devices are still to be made is only planned.
   *
   * @return the devices a prepare of the claim would answer
   */
  public List<PreparedDevice> rehearse(ClaimRef ref, ResourceClaim claim) throws PrepareException {
    PreparedClaims none = PreparedClaims.empty(node.current().bootId());
    Plan plan = plan(ref, claim, none);
    List<PlannedDevice> devices = plan.mig().devices();
    if (!plan.mig().intents().isEmpty()) {
      return prepared(ref, plan.mig().existing());
    }
    List<PreparedDevice> prepared = prepared(ref, devices);
    List<SharingAction> applied = sharingPlanner.forMade(plan.sharing(), devices);
    cdiWriter.render(cdiBuilder.build(ref.uid(), deviceEdits.resolve(devices)));
    node.render(
        none.with(
            ref.uid(),
            new ClaimEntry(
                ClaimState.PrepareCompleted, ref.namespace(), ref.name(), prepared, List.of())));
    PrepareStory.prepared(ref.uid(), prepared, List.of(), applied, none);
    return prepared;
  }

  private Plan plan(ClaimRef ref, ResourceClaim claim, PreparedClaims now) throws PrepareException {
    List<PlannedDevice> devices = planner.plan(ref, claim, inventory.get(), now);
    DynamicMig.Plan migPlan = mig.plan(ref, devices, now);
    return new Plan(migPlan, sharingPlanner.prepare(ref, migPlan.devices(), now));
  }

  /** Undoes the claim's preparation; a claim we never prepared is already unprepared. */
  public void unprepare(ClaimRef ref) throws PrepareException {
    try (var held = node.lock();
        var mdc = ClaimLogContext.of(ref)) {
      ClaimEntry entry = node.refresh().claims().get(ref.uid());
      if (entry == null) {
        rollback.deleteSpec(ref);
        LOG.debug("claim not prepared here; nothing to undo");
        return;
      }
      rollback.rollBack(ref);
      claims.clearPrepared(ref);
      PrepareStory.unprepared(entry).forEach(event -> events.record(ref, event));
      holders.changed(node.current(), ref.uid(), List.of());
      LOG.info("claim unprepared");
    }
  }

  /**
   * The checkpoint as last read or written (for metrics, the health stream and tests); never waits
   * for a prepare or unprepare in progress, whose intermediate states it may show.
   */
  public PreparedClaims checkpoint() {
    return node.current();
  }

  /**
   * Records the claim's state. An intent (started) is durable: it is what finds device work again
   * after a crash. The result (completed) need not be: after a power loss the claim comes back as
   * the durable intent before it, or not at all when it did no device work, and the start-up of the
   * new boot rolls every claim of the earlier boot back all the same ({@link NodeClaims#save}).
   */
  private void record(
      ClaimRef ref, ClaimState state, List<PreparedDevice> devices, List<CreatedMig> created)
      throws PrepareException {
    node.save(
        node.current()
            .with(ref.uid(), new ClaimEntry(state, ref.namespace(), ref.name(), devices, created)),
        state == ClaimState.PrepareCompleted ? Durability.WHOLE : Durability.DURABLE);
  }

  /** The pods the claim is reserved for, by name (its namespace is theirs). */
  private static List<String> pods(ResourceClaim claim) {
    if (claim.getStatus() == null || claim.getStatus().getReservedFor() == null) {
      return List.of();
    }
    return claim.getStatus().getReservedFor().stream()
        .filter(r -> "pods".equals(r.getResource()) && r.getName() != null)
        .map(r -> r.getName())
        .toList();
  }

  /** The API server admitted adminAccess only in a namespace labelled for it; say who got it. */
  private static void logAdminAccess(ClaimRef ref, List<PreparedDevice> prepared) {
    List<String> admin =
        prepared.stream().filter(PreparedDevice::adminAccess).map(PreparedDevice::device).toList();
    if (!admin.isEmpty()) {
      LOG.atInfo()
          .addKeyValue("claim.uid", ref.uid())
          .addKeyValue("devices", String.join(",", admin))
          .log("admin access granted: devices handed over as they are");
    }
  }

  /**
   * One prepared device per device name; a device allocated for several requests lists them all.
   */
  private List<PreparedDevice> prepared(ClaimRef ref, List<PlannedDevice> plan) {
    Map<String, PreparedDevice> byName = new LinkedHashMap<>();
    for (PlannedDevice device : plan) {
      String name = device.name().value();
      PreparedDevice earlier = byName.get(name);
      List<String> requests = new ArrayList<>(earlier == null ? List.of() : earlier.requestNames());
      if (!requests.contains(device.baseRequest())) {
        requests.add(device.baseRequest());
      }
      byName.put(
          name,
          new PreparedDevice(
              requests,
              device.pool(),
              name,
              List.of(cdiBuilder.deviceId(ref.uid(), name)),
              device.uuid(),
              device.config().sharing().strategy(),
              device.shareId(),
              SharingSettings.of(device.config().sharing()),
              device.adminAccess()));
    }
    return List.copyOf(byName.values());
  }
}
