package dev.tessera.plugin.prepare;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;

/**
 * One allocated device of a claim, resolved against the node's hardware, with the config that
 * applies to it.
 *
 * @param request the allocation result's request, possibly {@code <request>/<subrequest>}
 * @param migDevice the MIG device, or {@code null} for a whole GPU
 */
public record PlannedDevice(
    String request,
    String pool,
    DeviceName name,
    Gpu gpu,
    MigDevice migDevice,
    DeviceConfig config,
    String shareId) {

  /** The base request name the kubelet matches against containers' {@code resources.claims}. */
  public String baseRequest() {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }

  /** The same device resolved to the MIG device that exists now (or will, once created). */
  public PlannedDevice withMigDevice(MigDevice device) {
    return new PlannedDevice(request, pool, name, gpu, device, config, shareId);
  }

  public String uuid() {
    return migDevice == null ? gpu.uuid() : migDevice.uuid();
  }
}
