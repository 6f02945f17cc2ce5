package dev.tessera.plugin.prepare;

import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimEvent;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.sharing.SharingAction;
import java.util.ArrayList;
import java.util.List;

/**
 * The Events a completed prepare or an unprepare tells, from what was done (pure): each MIG device
 * made, each sharing set-up (an MPS daemon started or joined, a time-slice set), then the devices
 * prepared.
 */
final class PrepareStory {
  private PrepareStory() {}

  /**
   * @param before the node's claims before this one was recorded (who else holds its devices)
   * @param sharing the sharing actions applied, with the made devices' UUIDs
   */
  static List<ClaimEvent> prepared(
      String claimUid,
      List<PreparedDevice> devices,
      List<CreatedMig> created,
      List<SharingAction> sharing,
      PreparedClaims before) {
    var events = new ArrayList<ClaimEvent>();
    created.forEach(mig -> events.add(new ClaimEvent.MigCreated(mig)));
    for (SharingAction action : sharing) {
      switch (action) {
        case SharingAction.EnsureMps m ->
            events.add(
                othersHold(before, claimUid, m.device())
                    ? new ClaimEvent.MpsJoined(m.device(), m.deviceUuid())
                    : new ClaimEvent.MpsStarted(m.device(), m.deviceUuid()));
        case SharingAction.SetTimeSlice t ->
            events.add(new ClaimEvent.TimeSliceSet(t.device(), t.gpuUuid(), t.interval().name()));
        case SharingAction.StopMps s -> {}
      }
    }
    events.add(new ClaimEvent.Prepared(devices));
    return events;
  }

  /** What an unprepare of the claim (as its entry was) tells. */
  static List<ClaimEvent> unprepared(ClaimEntry entry) {
    var events = new ArrayList<ClaimEvent>();
    entry.createdMig().forEach(mig -> events.add(new ClaimEvent.MigDestroyed(mig)));
    events.add(
        new ClaimEvent.Unprepared(entry.devices().stream().map(PreparedDevice::device).toList()));
    return events;
  }

  private static boolean othersHold(PreparedClaims claims, String claimUid, String device) {
    return claims.claims().entrySet().stream()
        .filter(e -> !e.getKey().equals(claimUid))
        .flatMap(e -> e.getValue().devices().stream())
        .anyMatch(d -> d.device().equals(device) && !d.adminAccess());
  }
}
