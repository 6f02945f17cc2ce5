package dev.tessera.plugin.sharing;

import dev.tessera.api.config.Sharing.TimeSliceInterval;

/**
 * One change to a device's sharing set-up, decided by {@link SharingPlanner} and carried out by
 * {@link SharingEffects}. Every action is idempotent, so a plan can be applied again after a crash.
 */
public sealed interface SharingAction {

  /** The device name, for logs and errors, and what a plan is keyed by. */
  String device();

  /** The same action on the device with this UUID. */
  SharingAction withUuid(String uuid);

  /** Sets the time-slice of a whole GPU ({@code Default} restores the driver's own). */
  record SetTimeSlice(String gpuUuid, String device, TimeSliceInterval interval)
      implements SharingAction {
    @Override
    public SetTimeSlice withUuid(String uuid) {
      return new SetTimeSlice(uuid, device, interval);
    }
  }

  /**
   * Makes sure the device's MPS control daemon runs (started on first use, found again after a
   * restart); a whole GPU is switched to the exclusive-process compute mode MPS expects.
   */
  record EnsureMps(String deviceUuid, String device, boolean wholeGpu) implements SharingAction {
    @Override
    public EnsureMps withUuid(String uuid) {
      return new EnsureMps(uuid, device, wholeGpu);
    }
  }

  /** Stops the device's MPS control daemon, now that no claim uses it, and undoes its set-up. */
  record StopMps(String deviceUuid, String device, boolean wholeGpu) implements SharingAction {
    @Override
    public StopMps withUuid(String uuid) {
      return new StopMps(uuid, device, wholeGpu);
    }
  }
}
