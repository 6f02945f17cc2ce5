package dev.tessera.plugin.checkpoint;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The plugin's durable state: every claim it has started or completed preparing, keyed by claim
 * UID, and the boot it was written in (CDI specs under /var/run and MIG devices do not survive a
 * reboot, so claims from an earlier boot must be prepared again).
 */
public record Checkpoint(String apiVersion, String bootId, Map<String, ClaimEntry> claims) {
  public static final String API_VERSION = "checkpoint.gpu.tessera.dev/v1";

  public Checkpoint {
    claims = Collections.unmodifiableMap(new LinkedHashMap<>(claims));
  }

  public static Checkpoint empty(String bootId) {
    return new Checkpoint(API_VERSION, bootId, Map.of());
  }

  public Checkpoint with(String claimUid, ClaimEntry entry) {
    var copy = new LinkedHashMap<>(claims);
    copy.put(claimUid, entry);
    return new Checkpoint(apiVersion, bootId, copy);
  }

  public Checkpoint without(String claimUid) {
    var copy = new LinkedHashMap<>(claims);
    copy.remove(claimUid);
    return new Checkpoint(apiVersion, bootId, copy);
  }

  /**
   * The checkpoint as seen in boot {@code currentBootId}: after a reboot every claim is demoted to
   * started, so the next prepare redoes its device work and CDI spec instead of trusting them.
   */
  public Checkpoint inBoot(String currentBootId) {
    if (currentBootId.equals(bootId)) {
      return this;
    }
    var demoted = new LinkedHashMap<String, ClaimEntry>();
    claims.forEach((uid, entry) -> demoted.put(uid, entry.withState(ClaimState.PrepareStarted)));
    return new Checkpoint(apiVersion, currentBootId, demoted);
  }
}
