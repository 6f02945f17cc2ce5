package dev.tessera.plugin.prepare;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.cdi.CdiSpecBuilder;
import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.claim.SharingSettings;
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
import org.slf4j.MDC;

/**
 * Owns the prepared claims of this node: one lock ({@link NodeLock}, shared with any other plugin
 * process on the node) serializes every prepare and unprepare, the checkpoint records each claim in
 * two phases (started before any device work or CDI file exists, completed after), and any failure
 * rolls back what was done so nothing is left half made.
 */
public final class DeviceState {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceState.class);

  private final ClaimSource claims;
  private final ClaimPlanner planner;
  private final Supplier<NodeInventory> inventory;
  private final CdiSpecBuilder cdiBuilder;
  private final DeviceEditsResolver deviceEdits;
  private final CdiSpecWriter cdiWriter;
  private final CheckpointStore store;
  private final SharingPlanner sharingPlanner;
  private final SharingEffects sharing;
  private final DynamicMig mig;
  private final NodeLock lock;
  private final String bootId;
  private final Runnable rediscoverInventory;

  /**
   * The checkpoint as last read or written: an immutable value, replaced whole under the node lock
   * and read without it, so metrics and the health stream never wait behind a prepare (which holds
   * the lock through API calls, MIG work and driver tools).
   */
  private volatile PreparedClaims checkpoint;

  /**
   * @param rediscoverInventory discovers the node's inventory again; run when the start-up rollback
   *     destroyed MIG devices (or switched MIG mode off) that the start-up discovery saw
   */
  public DeviceState(
      ClaimSource claims,
      ClaimPlanner planner,
      Supplier<NodeInventory> inventory,
      CdiSpecBuilder cdiBuilder,
      DeviceEditsResolver deviceEdits,
      CdiSpecWriter cdiWriter,
      CheckpointStore store,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      String bootId,
      Runnable rediscoverInventory) {
    this.rediscoverInventory = rediscoverInventory;
    this.claims = claims;
    this.planner = planner;
    this.inventory = inventory;
    this.cdiBuilder = cdiBuilder;
    this.deviceEdits = deviceEdits;
    this.cdiWriter = cdiWriter;
    this.store = store;
    this.sharingPlanner = sharingPlanner;
    this.sharing = sharing;
    this.mig = mig;
    this.bootId = bootId;
    this.lock = new NodeLock(store.file().resolveSibling(store.file().getFileName() + ".lock"));
    this.checkpoint = store.load(bootId);
  }

  /**
   * Reads the checkpoint again: another plugin process on the node (the old or new instance during
   * a rolling upgrade) may have written it since. Called with the node lock held. Always, not "when
   * changed": a file's time and inode can repeat across two quick atomic rewrites, and the read of
   * a few KiB is cheap next to the fsyncs of a prepare.
   */
  private void refresh() {
    checkpoint = store.load(bootId);
  }

  /**
   * Run once at start-up, before the kubelet can call: persists the checkpoint as this boot sees it
   * (after a reboot every claim is demoted to started), and removes CDI specs of ours that no
   * checkpointed claim accounts for (left by an operator or an older installation); a claim in the
   * checkpoint keeps its spec until it is prepared again or unprepared. Claims whose prepare did
   * not complete are rolled back (and with them the MIG devices made for them). MPS daemons the
   * checkpointed claims use are found again (or started, after a reboot); others are stopped.
   */
  public void recover() throws IOException {
    try (var held = lockForRecovery()) {
      refresh();
      for (String uid : cdiWriter.claimUidsWithSpecs()) {
        if (!checkpoint.claims().containsKey(uid)) {
          LOG.atWarn().addKeyValue("claim.uid", uid).log("removing CDI spec of unknown claim");
          cdiWriter.delete(uid);
        }
      }
      // MIG devices of unfinished claims (and MIG mode they switched on) are about to go: the
      // inventory discovered before saw them.
      boolean migChanges =
          checkpoint.claims().values().stream()
              .anyMatch(e -> e.state() != ClaimState.PrepareCompleted && !e.createdMig().isEmpty());
      rollBackUnfinished();
      try {
        save(mig.reconcile(checkpoint));
        sharing.reconcile(sharingPlanner.daemonsInUse(checkpoint));
      } catch (PrepareException e) {
        throw new IOException(e.getMessage(), e);
      }
      if (migChanges) {
        LOG.info("MIG devices of unfinished claims were destroyed; discovering the GPUs again");
        rediscoverInventory.run();
      }
    }
  }

  /**
   * Claims whose prepare did not complete (the plugin died in it, or the node rebooted) are rolled
   * back before the kubelet can call: their sharing set-up is undone where no other claim needs it,
   * their MIG devices destroyed, their spec and entry removed; the kubelet's retry prepares them
   * from scratch. A claim whose rollback fails keeps its entry, and its next prepare or unprepare
   * tries again: one claim does not stop the plugin from starting.
   */
  private void rollBackUnfinished() {
    for (Map.Entry<String, ClaimEntry> e : List.copyOf(checkpoint.claims().entrySet())) {
      if (e.getValue().state() == ClaimState.PrepareCompleted) {
        continue;
      }
      ClaimRef ref = new ClaimRef(e.getValue().namespace(), e.getValue().name(), e.getKey());
      try (var mdc = ClaimLogContext.of(ref)) {
        LOG.warn("rolling back a claim whose prepare did not complete");
        rollBack(ref);
      } catch (PrepareException ex) {
        LOG.atWarn().setCause(ex).log("cannot roll back the claim now; its next call will retry");
      }
    }
  }

  /** The devices prepared for the claim; the same answer again when it is already prepared. */
  public List<PreparedDevice> prepare(ClaimRef ref) throws PrepareException {
    try (var held = lock.acquire();
        var mdc = ClaimLogContext.of(ref)) {
      refresh();
      ClaimEntry existing = checkpoint.claims().get(ref.uid());
      if (existing != null && existing.state() == ClaimState.PrepareCompleted) {
        LOG.debug("claim already prepared");
        // The kubelet asks again, e.g. after a container restart: a daemon that died since is
        // started again (a no-op when it runs).
        sharing.apply(sharingPlanner.daemonsOf(existing));
        return existing.devices();
      }
      if (existing != null) {
        LOG.info("claim was started but not completed; rolling back before preparing again");
        rollBack(ref);
      }
      ResourceClaim claim =
          claims
              .get(ref.namespace(), ref.name())
              .orElseThrow(
                  () -> new PrepareException("claim " + ref + " not found in the API server"));
      List<PlannedDevice> plan = planner.plan(ref, claim, inventory.get(), checkpoint);
      // Decided before anything is written: a claim whose MIG devices or sharing cannot be
      // honoured changes nothing.
      DynamicMig.Plan migPlan = mig.plan(ref, plan, checkpoint);
      plan = migPlan.devices();
      List<SharingAction> setUp = sharingPlanner.prepare(ref, plan, checkpoint);
      // MIG devices still to be made are recorded as intents only: they have no UUID yet.
      List<PreparedDevice> prepared = prepared(ref, migPlan.existing());
      List<CreatedMig> created = migPlan.intents();
      save(checkpoint.with(ref.uid(), entry(ref, ClaimState.PrepareStarted, prepared, created)));
      try {
        if (!created.isEmpty()) {
          DynamicMig.Made made = mig.apply(migPlan);
          plan = made.devices();
          created = made.created();
          prepared = prepared(ref, plan);
          // Sharing is keyed by the MIG device's UUID, which exists only now.
          setUp = sharingPlanner.prepare(ref, plan, checkpoint);
          save(
              checkpoint.with(ref.uid(), entry(ref, ClaimState.PrepareStarted, prepared, created)));
        }
        sharing.apply(setUp);
        var edits = deviceEdits.resolve(plan);
        cdiWriter.write(ref.uid(), cdiBuilder.build(ref.uid(), edits));
        save(
            checkpoint.with(ref.uid(), entry(ref, ClaimState.PrepareCompleted, prepared, created)));
      } catch (IOException | PrepareException | RuntimeException e) {
        LOG.atWarn().setCause(e).log("prepare failed; rolling back");
        rollBack(ref);
        throw e instanceof PrepareException p
            ? p
            : new PrepareException("claim " + ref + ": prepare failed: " + e.getMessage(), e);
      }
      claims.reportPrepared(ref, prepared);
      List<String> admin =
          prepared.stream()
              .filter(PreparedDevice::adminAccess)
              .map(PreparedDevice::device)
              .toList();
      if (!admin.isEmpty()) {
        // The API server admitted adminAccess only in a namespace labelled for it; say who got it.
        LOG.atInfo()
            .addKeyValue("claim.uid", ref.uid())
            .addKeyValue("devices", String.join(",", admin))
            .log("admin access granted: devices handed over as they are");
      }
      LOG.atInfo().addKeyValue("devices", prepared.size()).log("claim prepared");
      return prepared;
    }
  }

  /** Undoes the claim's preparation; a claim we never prepared is already unprepared. */
  public void unprepare(ClaimRef ref) throws PrepareException {
    try (var held = lock.acquire();
        var mdc = ClaimLogContext.of(ref)) {
      refresh();
      if (!checkpoint.claims().containsKey(ref.uid())) {
        deleteSpec(ref);
        LOG.debug("claim not prepared here; nothing to undo");
        return;
      }
      rollBack(ref);
      claims.clearPrepared(ref);
      LOG.info("claim unprepared");
    }
  }

  /**
   * The checkpoint as last read or written (for metrics, the health stream and tests); never waits
   * for a prepare or unprepare in progress, whose intermediate states it may show.
   */
  public PreparedClaims checkpoint() {
    return checkpoint;
  }

  private NodeLock.Held lockForRecovery() throws IOException {
    try {
      return lock.acquire();
    } catch (PrepareException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /**
   * Undoes the claim's sharing set-up where no other claim needs it, removes its spec (no container
   * can be given a device that is going away), destroys the MIG devices made for it, then drops its
   * entry. The entry goes last: if undoing fails, it is still there to be undone by the next
   * attempt.
   */
  private void rollBack(ClaimRef ref) throws PrepareException {
    sharing.apply(sharingPlanner.release(ref.uid(), checkpoint));
    deleteSpec(ref);
    ClaimEntry entry = checkpoint.claims().get(ref.uid());
    if (entry != null) {
      mig.destroy(entry.createdMig());
    }
    save(checkpoint.without(ref.uid()));
  }

  private void deleteSpec(ClaimRef ref) throws PrepareException {
    try {
      cdiWriter.delete(ref.uid());
    } catch (IOException e) {
      throw new PrepareException("claim " + ref + ": cannot remove CDI spec: " + e.getMessage(), e);
    }
  }

  private void save(PreparedClaims next) throws PrepareException {
    try {
      store.save(next);
      checkpoint = next;
    } catch (IOException e) {
      throw new PrepareException(
          "cannot write checkpoint " + store.file() + ": " + e.getMessage(), e);
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

  private static ClaimEntry entry(
      ClaimRef ref, ClaimState state, List<PreparedDevice> devices, List<CreatedMig> created) {
    return new ClaimEntry(state, ref.namespace(), ref.name(), devices, created);
  }

  /** Puts the claim's identity on every log line written while it is being worked on. */
  private record ClaimLogContext(ClaimRef ref) implements AutoCloseable {
    static ClaimLogContext of(ClaimRef ref) {
      MDC.put("claim.uid", ref.uid());
      MDC.put("claim.namespace", ref.namespace());
      MDC.put("claim.name", ref.name());
      return new ClaimLogContext(ref);
    }

    @Override
    public void close() {
      MDC.remove("claim.uid");
      MDC.remove("claim.namespace");
      MDC.remove("claim.name");
    }
  }
}
