package dev.tessera.plugin.claim;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The plugin's durable state: every claim it has started or completed preparing, keyed by claim
 * UID, and the boot it was seen in (CDI specs under /var/run and MIG devices do not survive a
 * reboot, so claims from an earlier boot must be prepared again). The checkpoint file stores it
 * ({@code dev.tessera.plugin.checkpoint}).
 */
public record PreparedClaims(String bootId, Map<String, ClaimEntry> claims) {
  public PreparedClaims {
    claims = Collections.unmodifiableMap(new LinkedHashMap<>(claims));
  }

  public static PreparedClaims empty(String bootId) {
    return new PreparedClaims(bootId, Map.of());
  }

  public PreparedClaims with(String claimUid, ClaimEntry entry) {
    var copy = new LinkedHashMap<>(claims);
    copy.put(claimUid, entry);
    return new PreparedClaims(bootId, copy);
  }

  public PreparedClaims without(String claimUid) {
    var copy = new LinkedHashMap<>(claims);
    copy.remove(claimUid);
    return new PreparedClaims(bootId, copy);
  }

  /**
   * The claims as seen in boot {@code currentBootId}: after a reboot every claim is demoted to
   * started, so the next prepare redoes its device work and CDI spec instead of trusting them.
   */
  public PreparedClaims inBoot(String currentBootId) {
    if (currentBootId.equals(bootId)) {
      return this;
    }
    var demoted = new LinkedHashMap<String, ClaimEntry>();
    claims.forEach((uid, entry) -> demoted.put(uid, entry.withState(ClaimState.PrepareStarted)));
    return new PreparedClaims(currentBootId, demoted);
  }
}
