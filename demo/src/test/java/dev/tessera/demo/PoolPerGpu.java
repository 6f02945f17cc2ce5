package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node's pool split into one pool per GPU: each GPU's counter set in a slice of its own, beside
 * the slice of the devices that consume from it, in a pool named after the node and the set; the
 * devices that consume no counter stay in the node's pool. The same devices and the same counters,
 * so the same placements fit: what the scheduler benchmark compares Tessera's mig-dynamic shape
 * with, because the scheduler's allocator builds and compares a pool's counters whole for every
 * candidate device (72 counters a node in one pool, 9 in each of eight). Measured: no gain, as most
 * of that cost is elsewhere (docs/benchmarks.md, "mig-dynamic in a pool per GPU").
 */
final class PoolPerGpu {
  private PoolPerGpu() {}

  static List<ResourceSlice> of(List<ResourceSlice> pool) {
    Map<String, CounterSet> sets = new LinkedHashMap<>();
    Map<String, List<ResourceSlice>> devicesBySet = new LinkedHashMap<>();
    List<ResourceSlice> withoutCounters = new ArrayList<>();
    for (ResourceSlice slice : pool) {
      if (slice.getSpec().getSharedCounters() != null
          && !slice.getSpec().getSharedCounters().isEmpty()) {
        slice.getSpec().getSharedCounters().forEach(set -> sets.put(set.getName(), set));
        continue;
      }
      String set = counterSetOf(slice);
      if (set == null) {
        withoutCounters.add(slice);
      } else {
        devicesBySet.computeIfAbsent(set, s -> new ArrayList<>()).add(slice);
      }
    }
    var result = new ArrayList<ResourceSlice>();
    for (var entry : devicesBySet.entrySet()) {
      CounterSet set = sets.get(entry.getKey());
      if (set == null) {
        throw new IllegalArgumentException("no counter set " + entry.getKey() + " in the pool");
      }
      ResourceSlice first = entry.getValue().getFirst();
      String poolName = first.getSpec().getPool().getName() + "-" + set.getName();
      long count = entry.getValue().size() + 1L;
      ResourceSlice counters =
          new ResourceSliceBuilder(first)
              .editMetadata()
              .withName(first.getMetadata().getName() + "-" + set.getName())
              .endMetadata()
              .editSpec()
              .withDevices()
              .withSharedCounters(set)
              .endSpec()
              .build();
      result.add(inPool(counters, poolName, count));
      entry.getValue().forEach(slice -> result.add(inPool(slice, poolName, count)));
    }
    withoutCounters.forEach(
        slice ->
            result.add(inPool(slice, slice.getSpec().getPool().getName(), withoutCounters.size())));
    return result;
  }

  private static ResourceSlice inPool(ResourceSlice slice, String poolName, long count) {
    return new ResourceSliceBuilder(slice)
        .editSpec()
        .editPool()
        .withName(poolName)
        .withResourceSliceCount(count)
        .endPool()
        .endSpec()
        .build();
  }

  /** The one counter set a slice's devices consume from; null when none consumes any. */
  private static String counterSetOf(ResourceSlice slice) {
    String found = null;
    for (Device device : slice.getSpec().getDevices()) {
      if (device.getConsumesCounters() == null) {
        continue;
      }
      for (DeviceCounterConsumption consumption : device.getConsumesCounters()) {
        if (found != null && !found.equals(consumption.getCounterSet())) {
          throw new IllegalArgumentException(
              "slice " + slice.getMetadata().getName() + " consumes from two counter sets");
        }
        found = consumption.getCounterSet();
      }
    }
    return found;
  }
}
