package dev.tessera.plugin.health;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.nvml.GpuInstanceInfo;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.nvml.NvmlEvent;
import dev.tessera.plugin.nvml.NvmlException;
import dev.tessera.plugin.nvml.NvmlHandle;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names the device an NVML event is about, in the pool's words: the MIG device when NVML attributes
 * the event to a GPU instance (looked up live, since MIG devices come and go), else the whole GPU.
 * Also answers whether a named device still responds to NVML.
 */
final class EventDevices {
  private static final Logger LOG = LoggerFactory.getLogger(EventDevices.class);
  private final Nvml nvml;
  private final Supplier<NodeInventory> inventory;

  EventDevices(Nvml nvml, Supplier<NodeInventory> inventory) {
    this.nvml = nvml;
    this.inventory = inventory;
  }

  Optional<String> nameOf(NvmlEvent event) {
    String uuid = nvml.uuid(event.device());
    Optional<Gpu> gpu =
        inventory.get().gpus().stream().filter(g -> g.uuid().equals(uuid)).findFirst();
    if (gpu.isEmpty()) {
      return Optional.empty();
    }
    if (event.gpuInstance().isPresent()) {
      try {
        GpuInstanceInfo info =
            nvml.gpuInstanceInfo(
                nvml.gpuInstanceById(event.device(), event.gpuInstance().getAsInt()));
        var profile = gpu.get().migProfile(info.profileId());
        if (profile.isPresent()) {
          return Optional.of(
              new DeviceName.Mig(gpu.get().minor(), profile.get().name(), info.placement().start())
                  .value());
        }
      } catch (NvmlException e) {
        // The GPU instance is gone (or NVML cannot say): blame the whole GPU, the safe side.
        LOG.atWarn()
            .addKeyValue("gpu", uuid)
            .addKeyValue("gpuInstance", event.gpuInstance().getAsInt())
            .setCause(e)
            .log("cannot find the GPU instance of an event; attributing it to the whole GPU");
      }
    }
    return Optional.of(new DeviceName.Gpu(gpu.get().minor()).value());
  }

  /** Whether the GPU behind a device name answers a cheap NVML query. */
  boolean answers(String deviceName) {
    int minor =
        switch (DeviceName.parse(deviceName)) {
          case DeviceName.Gpu g -> g.minor();
          case DeviceName.Mig m -> m.parentMinor();
        };
    Optional<Gpu> gpu = inventory.get().gpuByMinor(minor);
    if (gpu.isEmpty()) {
      return false;
    }
    try {
      NvmlHandle.Device device = nvml.deviceByUuid(gpu.get().uuid());
      nvml.memoryInfo(device);
      return true;
    } catch (NvmlException e) {
      return false;
    }
  }
}
