package dev.tessera.plugin.prepare;

import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import dev.tessera.plugin.mig.DynamicMig;
import dev.tessera.plugin.sharing.SharingEffects;
import dev.tessera.plugin.sharing.SharingPlanner;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run once at start-up, before the kubelet can call: makes the node's claims, specs, MIG devices
 * and MPS daemons agree with the checkpoint again after whatever ended the last plugin process.
 */
public final class StartupRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

  private final NodeClaims claims;
  private final ClaimRollback rollback;
  private final CdiSpecWriter cdiWriter;
  private final SharingPlanner sharingPlanner;
  private final SharingEffects sharing;
  private final DynamicMig mig;
  private final Runnable rediscoverInventory;

  /**
   * @param rediscoverInventory discovers the node's inventory again; run when the rollback
   *     destroyed MIG devices (or switched MIG mode off) that the start-up discovery saw
   */
  public StartupRecovery(
      NodeClaims claims,
      ClaimRollback rollback,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      Runnable rediscoverInventory) {
    this.claims = claims;
    this.rollback = rollback;
    this.cdiWriter = cdiWriter;
    this.sharingPlanner = sharingPlanner;
    this.sharing = sharing;
    this.mig = mig;
    this.rediscoverInventory = rediscoverInventory;
  }

  /**
   * Persists the checkpoint as this boot sees it (after a reboot every claim is demoted to
   * started), and removes CDI specs of ours that no checkpointed claim accounts for (left by an
   * operator or an older installation); a claim in the checkpoint keeps its spec until it is
   * prepared again or unprepared. Claims whose prepare did not complete are rolled back (and with
   * them the MIG devices made for them). MPS daemons the checkpointed claims use are found again
   * (or started, after a reboot); others are stopped.
   */
  public void recover() throws IOException {
    try (var held = lock()) {
      PreparedClaims now = claims.refresh();
      for (String uid : cdiWriter.claimUidsWithSpecs()) {
        if (!now.claims().containsKey(uid)) {
          LOG.atWarn().addKeyValue("claim.uid", uid).log("removing CDI spec of unknown claim");
          cdiWriter.delete(uid);
        }
      }
      // MIG devices of unfinished claims (and MIG mode they switched on) are about to go: the
      // inventory discovered before saw them.
      boolean migChanges =
          now.claims().values().stream()
              .anyMatch(e -> e.state() != ClaimState.PrepareCompleted && !e.createdMig().isEmpty());
      rollBackUnfinished();
      try {
        claims.save(mig.reconcile(claims.current()), Durability.DURABLE);
        sharing.reconcile(sharingPlanner.daemonsInUse(claims.current()));
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
    for (Map.Entry<String, ClaimEntry> e : List.copyOf(claims.current().claims().entrySet())) {
      if (e.getValue().state() == ClaimState.PrepareCompleted) {
        continue;
      }
      ClaimRef ref = new ClaimRef(e.getValue().namespace(), e.getValue().name(), e.getKey());
      try (var mdc = ClaimLogContext.of(ref)) {
        LOG.warn("rolling back a claim whose prepare did not complete");
        rollback.rollBack(ref);
      } catch (PrepareException ex) {
        LOG.atWarn().setCause(ex).log("cannot roll back the claim now; its next call will retry");
      }
    }
  }

  private NodeLock.Held lock() throws IOException {
    try {
      return claims.lock();
    } catch (PrepareException e) {
      throw new IOException(e.getMessage(), e);
    }
  }
}
