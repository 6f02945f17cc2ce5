package dev.tessera.plugin.prepare;

import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import dev.tessera.plugin.mig.DynamicMig;
import dev.tessera.plugin.sharing.SharingEffects;
import dev.tessera.plugin.sharing.SharingPlanner;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

/**
 * Undoes what was prepared for a claim, as far as it got: by an unprepare, by a prepare that failed
 * or finds its claim half done, and by the start-up recovery. Called with the node lock held.
 */
public final class ClaimRollback {
  private final NodeClaims claims;
  private final CdiSpecWriter cdiWriter;
  private final SharingPlanner sharingPlanner;
  private final SharingEffects sharing;
  private final DynamicMig mig;
  private final Consumer<List<CreatedMig>> migDestroyed;

  public ClaimRollback(
      NodeClaims claims,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig) {
    this(claims, cdiWriter, sharingPlanner, sharing, mig, destroyed -> {});
  }

  /**
   * @param migDestroyed told which MIG devices went with a claim (the node's reported inventory may
   *     still show them: a plugin that started while they existed discovered them)
   */
  public ClaimRollback(
      NodeClaims claims,
      CdiSpecWriter cdiWriter,
      SharingPlanner sharingPlanner,
      SharingEffects sharing,
      DynamicMig mig,
      Consumer<List<CreatedMig>> migDestroyed) {
    this.claims = claims;
    this.cdiWriter = cdiWriter;
    this.sharingPlanner = sharingPlanner;
    this.sharing = sharing;
    this.mig = mig;
    this.migDestroyed = migDestroyed;
  }

  /**
   * Undoes the claim's sharing set-up where no other claim needs it, removes its spec (no container
   * can be given a device that is going away), destroys the MIG devices made for it, then drops its
   * entry. The entry goes last: if undoing fails, it is still there to be undone by the next
   * attempt.
   */
  void rollBack(ClaimRef ref) throws PrepareException {
    sharing.apply(sharingPlanner.release(ref.uid(), claims.current()));
    deleteSpec(ref);
    ClaimEntry entry = claims.current().claims().get(ref.uid());
    if (entry != null && !entry.createdMig().isEmpty()) {
      // Saved before the devices go: a plugin killed in between leaves the duty with the heir.
      PreparedClaims handedOver = DynamicMig.handOverMigMode(ref.uid(), claims.current());
      if (!handedOver.equals(claims.current())) {
        claims.save(handedOver, Durability.DURABLE);
      }
      List<CreatedMig> created = claims.current().claims().get(ref.uid()).createdMig();
      mig.destroy(created);
      migDestroyed.accept(created);
    }
    // An entry that made MIG devices goes durably: brought back by a power cut, its rollback in the
    // next boot would act on the MIG devices and MIG mode of its GPUs as they stand by then. Any
    // other entry brought back is rolled back harmlessly (NodeClaims#save).
    boolean madeMig = entry != null && !entry.createdMig().isEmpty();
    claims.save(
        claims.current().without(ref.uid()), madeMig ? Durability.DURABLE : Durability.WHOLE);
  }

  void deleteSpec(ClaimRef ref) throws PrepareException {
    try {
      cdiWriter.delete(ref.uid());
    } catch (IOException e) {
      throw new PrepareException("claim " + ref + ": cannot remove CDI spec: " + e.getMessage(), e);
    }
  }
}
