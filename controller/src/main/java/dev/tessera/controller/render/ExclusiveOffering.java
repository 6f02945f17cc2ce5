package dev.tessera.controller.render;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import java.util.List;

/** {@code exclusive}: one device per GPU that is not in MIG mode (CUDA cannot use those whole). */
final class ExclusiveOffering {
  private ExclusiveOffering() {}

  static List<DesiredSlice> render(NodeInventory node) {
    List<Device> devices =
        node.gpus().stream()
            .filter(gpu -> gpu.migMode() != MigMode.ENABLED)
            .map(gpu -> wholeGpu(node, gpu))
            .toList();
    return Chunks.of(devices, SliceLimits.MAX_DEVICES).stream()
        .map(chunk -> (DesiredSlice) new DesiredSlice.Devices(chunk))
        .toList();
  }

  static Device wholeGpu(NodeInventory node, Gpu gpu) {
    return new DeviceBuilder()
        .withName(new DeviceName.Gpu(gpu.minor()).value())
        .withAttributes(DeviceFacts.gpuAttributes(node, gpu))
        .withCapacity(DeviceFacts.gpuCapacity(gpu))
        .build();
  }
}
