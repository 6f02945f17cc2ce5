package dev.tessera.controller.render;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code mig-static}: the MIG devices that exist (made by an admin or mig-parted), with their UUID;
 * a GPU in MIG mode is never offered whole, a GPU not in MIG mode is offered whole.
 */
final class MigStaticOffering {
  private MigStaticOffering() {}

  static List<DesiredSlice> render(NodeInventory node) {
    var devices = new ArrayList<Device>();
    for (Gpu gpu : node.gpus()) {
      if (gpu.migMode() != MigMode.ENABLED) {
        devices.add(ExclusiveOffering.wholeGpu(node, gpu));
        continue;
      }
      for (MigDevice mig : gpu.migDevices()) {
        devices.add(migDevice(node, gpu, mig));
      }
    }
    return Chunks.of(devices, SliceLimits.MAX_DEVICES).stream()
        .map(chunk -> (DesiredSlice) new DesiredSlice.Devices(chunk))
        .toList();
  }

  private static Device migDevice(NodeInventory node, Gpu gpu, MigDevice mig) {
    var device =
        new DeviceBuilder()
            .withName(DeviceName.Mig.of(gpu.minor(), mig).value())
            .withAttributes(
                DeviceFacts.withUuid(
                    DeviceFacts.migAttributes(node, gpu, mig.profile()), mig.uuid()));
    gpu.migProfile(mig.profileId())
        .ifPresentOrElse(
            profile -> device.withCapacity(DeviceFacts.migCapacity(profile)),
            () ->
                device.withCapacity(
                    java.util.Map.of("memory", DeviceFacts.capacity(mig.memoryBytes()))));
    return device.build();
  }
}
