package dev.tessera.controller.render;

import static dev.tessera.api.DeviceAttributeNames.COMPUTE;
import static dev.tessera.api.DeviceAttributeNames.MEMORY;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code shared}: one device per GPU that many claims can be allocated (consumable capacity). Each
 * claim consumes memory in whole GiB ({@code capacity.requests.memory}); a claim that asks nothing
 * gets all of it, so sharing is always asked for. {@code compute} is a percentage of the GPU's SMs,
 * 0 unless asked; the node plugin turns both into MPS limits (issue 5).
 */
final class SharedOffering {
  private static final long GIB = 1L << 30;

  private SharedOffering() {}

  static List<DesiredSlice> render(NodeInventory node) {
    List<Device> devices =
        node.gpus().stream()
            .filter(gpu -> gpu.migMode() != MigMode.ENABLED)
            .map(gpu -> sharedGpu(node, gpu))
            .toList();
    return Chunks.of(devices, SliceLimits.MAX_DEVICES).stream()
        .map(chunk -> (DesiredSlice) new DesiredSlice.Devices(chunk))
        .toList();
  }

  private static Device sharedGpu(NodeInventory node, Gpu gpu) {
    long usable = (gpu.memoryBytes() / GIB) * GIB;
    var capacity = new LinkedHashMap<String, DeviceCapacity>();
    capacity.put(MEMORY, consumable(usable, usable, GIB, GIB));
    capacity.put(COMPUTE, consumable(100, 0, 0, 1));
    return new DeviceBuilder(ExclusiveOffering.wholeGpu(node, gpu))
        .withAllowMultipleAllocations(true)
        .withCapacity(Map.copyOf(capacity))
        .build();
  }

  private static DeviceCapacity consumable(long value, long byDefault, long min, long step) {
    return new DeviceCapacityBuilder()
        .withValue(quantity(value))
        .withRequestPolicy(
            new CapacityRequestPolicyBuilder()
                .withDefault(quantity(byDefault))
                .withNewValidRange()
                .withMin(quantity(min))
                .withMax(quantity(value))
                .withStep(quantity(step))
                .endValidRange()
                .build())
        .build();
  }

  private static Quantity quantity(long value) {
    return new Quantity(Long.toString(value));
  }
}
