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
 */
public record PlannedDevice(
    String request,
    String pool,
    DeviceName name,
    Gpu gpu,
    MigDevice migDevice,
    DeviceConfig config,
    String shareId,
    boolean adminAccess) {

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
    return new PlannedDevice(request, pool, name, gpu, device, config, shareId, adminAccess);
  }

  public String uuid() {
    return migDevice == null ? gpu.uuid() : migDevice.uuid();
  }
}
