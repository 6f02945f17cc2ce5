package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.List;

/**
 * A pool's slices with the same devices and no counters: no {@code sharedCounters}, no device's
 * {@code consumesCounters}, the slices that held only counters gone and the pool's slice count what
 * is left. What the scheduler benchmark compares Tessera's mig-dynamic shape with (the placements
 * then overlap freely: a cost comparison, not an offering).
 */
final class WithoutCounters {
  private WithoutCounters() {}

  static List<ResourceSlice> of(List<ResourceSlice> pool) {
    List<ResourceSlice> withDevices =
        pool.stream()
            .filter(s -> s.getSpec().getDevices() != null && !s.getSpec().getDevices().isEmpty())
            .toList();
    return withDevices.stream()
        .map(
            s ->
                new ResourceSliceBuilder(s)
                    .editSpec()
                    .withSharedCounters()
                    .withDevices(
                        s.getSpec().getDevices().stream().map(WithoutCounters::device).toList())
                    .editPool()
                    .withResourceSliceCount((long) withDevices.size())
                    .endPool()
                    .endSpec()
                    .build())
        .toList();
  }

  private static Device device(Device device) {
    return new DeviceBuilder(device).withConsumesCounters().build();
  }
}
