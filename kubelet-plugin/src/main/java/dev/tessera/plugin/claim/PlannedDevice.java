package dev.tessera.plugin.claim;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;

/**
 * One allocated device of a claim, resolved against the node's hardware, with the config that
 * applies to it.
 *
 * @param request the allocation result's request, possibly {@code <request>/<subrequest>}
 * @param migDevice the MIG device, or {@code null} for a whole GPU (and for a MIG device with admin
 *     access that does not exist: it is handed over as its GPU, see {@link #adminAccess})
 * @param adminAccess allocated with admin access: the device is handed over as it is, beside the
 *     claims that use it; nothing is set up, created or checked against other claims for it, and
 *     its config is always exclusive (a config asking for sharing is refused)
 * @param migTarget what a MIG device name means on this GPU, resolved once when the claim is
 *     planned (whether the device exists yet or not); {@code null} for a whole GPU
 */
public record PlannedDevice(
    String request,
    String pool,
    DeviceName name,
    Gpu gpu,
    MigDevice migDevice,
    DeviceConfig config,
    String shareId,
    boolean adminAccess,
    MigTarget migTarget) {

  /** A device planned without its MIG target (a whole GPU, or a MIG device that exists). */
  public PlannedDevice(
      String request,
      String pool,
      DeviceName name,
      Gpu gpu,
      MigDevice migDevice,
      DeviceConfig config,
      String shareId,
      boolean adminAccess) {
    this(request, pool, name, gpu, migDevice, config, shareId, adminAccess, null);
  }

  /** A device allocated without admin access. */
  public PlannedDevice(
      String request,
      String pool,
      DeviceName name,
      Gpu gpu,
      MigDevice migDevice,
      DeviceConfig config,
      String shareId) {
    this(request, pool, name, gpu, migDevice, config, shareId, false);
  }

  /** The base request name the kubelet matches against containers' {@code resources.claims}. */
  public String baseRequest() {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }

  /** The same device resolved to the MIG device that exists now (or will, once created). */
  public PlannedDevice withMigDevice(MigDevice device) {
    return new PlannedDevice(
        request, pool, name, gpu, device, config, shareId, adminAccess, migTarget);
  }

  /**
   * The MIG device's UUID, else the GPU's: a MIG device still to be made has its GPU's until it is
   * made (which is why the sharing plan is keyed by device name), and so does a MIG device handed
   * over with admin access where there is none.
   */
  public String uuid() {
    return migDevice == null ? gpu.uuid() : migDevice.uuid();
  }

  /** The device's memory: the MIG device's (made or to be made) or the whole GPU's. */
  public long memoryBytes() {
    if (migDevice != null) {
      return migDevice.memoryBytes();
    }
    return migTarget == null ? gpu.memoryBytes() : migTarget.memoryBytes();
  }
}
