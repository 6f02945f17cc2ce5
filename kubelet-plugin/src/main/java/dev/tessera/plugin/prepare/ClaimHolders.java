package dev.tessera.plugin.prepare;

import dev.tessera.plugin.claim.PreparedClaims;
import java.util.List;

/**
 * Where prepare tells who holds the node's devices now (the GpuNode's status). Never blocks: the
 * adapter coalesces and writes off the kubelet's path.
 */
public interface ClaimHolders {
  /**
   * The node's claims after a prepare or unprepare.
   *
   * @param claimUid the claim that changed
   * @param pods the pods reserving it (its {@code status.reservedFor} as read at prepare; empty
   *     after an unprepare)
   */
  void changed(PreparedClaims claims, String claimUid, List<String> pods);
}
