package dev.tessera.plugin.claim;

import dev.tessera.api.config.SharingStrategy;
import java.util.List;

/**
 * One device prepared for a claim: what the kubelet gets back, and what the checkpoint keeps so a
 * re-prepare returns the same answer and an unprepare knows what to undo.
 *
 * @param requestNames the claim's requests the device was allocated for (base names)
 * @param uuid the GPU or MIG device UUID
 * @param sharing the sharing strategy the device was prepared with
 * @param shareId set when allocated from a device that allows multiple allocations
 * @param settings the sharing settings ({@link SharingSettings#NONE} in checkpoints written before
 *     they were kept)
 * @param adminAccess prepared with admin access: handed over as it is, so it owns and uses nothing
 *     (no sharing set-up, no MIG device) and never conflicts with another claim's hold on the
 *     device (false in checkpoints written before admin access)
 */
public record PreparedDevice(
    List<String> requestNames,
    String pool,
    String device,
    List<String> cdiDeviceIds,
    String uuid,
    SharingStrategy sharing,
    String shareId,
    SharingSettings settings,
    boolean adminAccess) {
  public PreparedDevice {
    requestNames = List.copyOf(requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
    settings = settings == null ? SharingSettings.NONE : settings;
  }

  /** A device without sharing settings (exclusive, or shared without limits). */
  public PreparedDevice(
      List<String> requestNames,
      String pool,
      String device,
      List<String> cdiDeviceIds,
      String uuid,
      SharingStrategy sharing,
      String shareId) {
    this(requestNames, pool, device, cdiDeviceIds, uuid, sharing, shareId, SharingSettings.NONE);
  }

  /** A device prepared without admin access. */
  public PreparedDevice(
      List<String> requestNames,
      String pool,
      String device,
      List<String> cdiDeviceIds,
      String uuid,
      SharingStrategy sharing,
      String shareId,
      SharingSettings settings) {
    this(requestNames, pool, device, cdiDeviceIds, uuid, sharing, shareId, settings, false);
  }
}
