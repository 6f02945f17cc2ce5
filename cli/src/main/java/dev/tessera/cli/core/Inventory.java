package dev.tessera.cli.core;

import dev.tessera.cel.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The driver's devices by node, what allocated claims hold of them, and each pool's shared
 * counters: the one reading of a {@link Snapshot} that both {@code nodes} and {@code why} use.
 * Pure. Since Kubernetes 1.35 counters live in their own slices of the pool, so they are gathered
 * by pool, not by slice. Not thread-safe: one call's reading.
 */
public final class Inventory {
  private final Map<String, List<PublishedDevice>> byNode = new TreeMap<>();
  private final Map<String, PublishedDevice> byKey = new LinkedHashMap<>();
  private final Map<String, Map<String, Map<String, Quantity>>> counters = new LinkedHashMap<>();
  private final Map<String, List<DeviceUse>> uses = new LinkedHashMap<>();
  private final Map<String, List<PublishedDevice>> byPool = new LinkedHashMap<>();
  // A GPU's counter use is asked for by each of its placements: summed once.
  private final Map<String, CounterUse> counterUses = new HashMap<>();

  public Inventory(Snapshot snapshot) {
    for (ResourceSlice slice : snapshot.slices()) {
      var spec = slice.getSpec();
      if (!snapshot.driver().equals(spec.getDriver())) {
        continue;
      }
      String pool = spec.getPool().getName();
      String node = spec.getNodeName() != null ? spec.getNodeName() : pool;
      for (CounterSet set : nullToEmpty(spec.getSharedCounters())) {
        var values = new LinkedHashMap<String, Quantity>();
        set.getCounters().forEach((name, c) -> values.put(name, Quantities.of(c.getValue())));
        counters.computeIfAbsent(pool, p -> new LinkedHashMap<>()).put(set.getName(), values);
      }
      for (Device device : nullToEmpty(spec.getDevices())) {
        var published = new PublishedDevice(node, pool, device);
        byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(published);
        byKey.put(key(pool, device.getName()), published);
        byPool.computeIfAbsent(pool, p -> new ArrayList<>()).add(published);
      }
    }
    for (ResourceClaim claim : snapshot.claims()) {
      var status = claim.getStatus();
      if (status == null || status.getAllocation() == null) {
        continue;
      }
      List<String> pods =
          nullToEmpty(status.getReservedFor()).stream()
              .map(ResourceClaimConsumerReference::getName)
              .toList();
      for (DeviceRequestAllocationResult result : results(claim)) {
        if (!snapshot.driver().equals(result.getDriver())) {
          continue;
        }
        var consumed = new LinkedHashMap<String, Quantity>();
        if (result.getConsumedCapacity() != null) {
          result.getConsumedCapacity().forEach((n, q) -> consumed.put(n, Quantities.of(q)));
        }
        uses.computeIfAbsent(key(result.getPool(), result.getDevice()), k -> new ArrayList<>())
            .add(new DeviceUse(ClaimRef.of(claim), result.getRequest(), consumed, pods));
      }
    }
  }

  public static List<DeviceRequestAllocationResult> results(ResourceClaim claim) {
    var status = claim.getStatus();
    if (status == null
        || status.getAllocation() == null
        || status.getAllocation().getDevices() == null) {
      return List.of();
    }
    return nullToEmpty(status.getAllocation().getDevices().getResults());
  }

  /** Node names, sorted, each with its devices in the order the slices publish them. */
  public Map<String, List<PublishedDevice>> byNode() {
    return byNode;
  }

  public List<PublishedDevice> devicesOf(String node) {
    return byNode.getOrDefault(node, List.of());
  }

  public List<DeviceUse> usesOf(PublishedDevice device) {
    return uses.getOrDefault(key(device.pool(), device.name()), List.of());
  }

  /** A pool's counter set: counter name to what the GPU has; empty when not published. */
  public Map<String, Quantity> counterSet(String pool, String set) {
    return counters.getOrDefault(pool, Map.of()).getOrDefault(set, Map.of());
  }

  /**
   * What allocated devices of the pool consume of one counter set, by counter, and who holds them:
   * the sum the scheduler checks a new device's consumption against.
   */
  public CounterUse counterUse(String pool, String set) {
    return counterUses.computeIfAbsent(key(pool, set), k -> sumCounterUse(pool, set));
  }

  private CounterUse sumCounterUse(String pool, String set) {
    var used = new LinkedHashMap<String, Quantity>();
    var holders = new LinkedHashMap<String, List<ClaimRef>>();
    for (PublishedDevice device : byPool.getOrDefault(pool, List.of())) {
      if (usesOf(device).isEmpty()) {
        continue;
      }
      for (DeviceCounterConsumption consumption :
          nullToEmpty(device.device().getConsumesCounters())) {
        if (!set.equals(consumption.getCounterSet())) {
          continue;
        }
        consumption
            .getCounters()
            .forEach(
                (name, c) -> {
                  used.merge(name, Quantities.of(c.getValue()), Quantity::add);
                  var list = holders.computeIfAbsent(name, n -> new ArrayList<>());
                  usesOf(device).forEach(u -> list.add(u.claim()));
                });
      }
    }
    return new CounterUse(used, holders);
  }

  /** What is consumed of each counter of a set, and by which claims. */
  public record CounterUse(Map<String, Quantity> used, Map<String, List<ClaimRef>> holders) {
    public Quantity usedOf(String counter) {
      return used.getOrDefault(counter, Quantity.of(0));
    }

    public List<ClaimRef> holdersOf(String counter) {
      return holders.getOrDefault(counter, List.of());
    }
  }

  private static String key(String pool, String device) {
    return pool + "/" + device;
  }

  static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
