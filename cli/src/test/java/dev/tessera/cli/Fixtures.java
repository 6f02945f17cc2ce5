package dev.tessera.cli;

import dev.tessera.cli.core.Snapshot;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Slices, classes and claims shaped the way Tessera's controller and the scheduler write them: the
 * attributes the renderer publishes, mig-dynamic counters in their own slice, allocation results
 * with pool, device and consumed capacity.
 */
public final class Fixtures {
  public static final String D = "gpu.tessera.dev";
  static final long GIB = 1L << 30;

  private Fixtures() {}

  public static Snapshot snapshot(
      List<ResourceSlice> slices,
      List<ResourceClaim> claims,
      Map<String, Map<String, List<String>>> health) {
    return new Snapshot(D, slices, claims, classes(), health);
  }

  /** Tessera's DeviceClasses, as deploy/manifests/deviceclasses.yaml. */
  public static List<DeviceClass> classes() {
    return List.of(
        deviceClass(
            "gpu.tessera.dev",
            "device.driver == \"gpu.tessera.dev\" && device.attributes[\"gpu.tessera.dev\"].type == \"gpu\""),
        deviceClass(
            "mig.tessera.dev",
            "device.driver == \"gpu.tessera.dev\" && device.attributes[\"gpu.tessera.dev\"].type == \"mig\""),
        deviceClass(
            "shared.tessera.dev",
            "device.driver == \"gpu.tessera.dev\" && device.attributes[\"gpu.tessera.dev\"].type =="
                + " \"gpu\" && device.allowMultipleAllocations"));
  }

  static DeviceClass deviceClass(String name, String expression) {
    return new DeviceClassBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewSelector()
        .withNewCel(expression)
        .endSelector()
        .endSpec()
        .build();
  }

  public static ResourceSlice slice(String node, List<Device> devices) {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(node + "-" + D + "-" + devices.size())
        .endMetadata()
        .withNewSpec()
        .withDriver(D)
        .withNodeName(node)
        .withNewPool()
        .withName(node)
        .withGeneration(1L)
        .withResourceSliceCount(2L)
        .endPool()
        .withDevices(devices)
        .endSpec()
        .build();
  }

  /** A mig-dynamic GPU's counter set: {@code slices} memory slices and its memory. */
  public static ResourceSlice counters(String node, int minor, int slices, long memoryGib) {
    var counters = new LinkedHashMap<String, Counter>();
    for (int s = 0; s < slices; s++) {
      counters.put("memory-slice-" + s, new Counter(new Quantity("1")));
    }
    counters.put("memory", new Counter(new Quantity(Long.toString(memoryGib * GIB))));
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(node + "-counters")
        .endMetadata()
        .withNewSpec()
        .withDriver(D)
        .withNodeName(node)
        .withNewPool()
        .withName(node)
        .withGeneration(1L)
        .withResourceSliceCount(2L)
        .endPool()
        .withSharedCounters(
            new CounterSetBuilder()
                .withName("gpu-" + minor + "-counters")
                .withCounters(counters)
                .build())
        .endSpec()
        .build();
  }

  public static Device gpu(int minor, long memoryGib) {
    return new DeviceBuilder()
        .withName("gpu-" + minor)
        .withAttributes(
            Map.of(
                "type", string("gpu"),
                "productName", string("NVIDIA H100 80GB HBM3"),
                "uuid", string("GPU-" + minor),
                "driverVersion", new DeviceAttributeBuilder().withVersion("580.95.5").build()))
        .withCapacity(
            Map.of(
                "memory",
                new DeviceCapacityBuilder()
                    .withValue(new Quantity(Long.toString(memoryGib * GIB)))
                    .build()))
        .build();
  }

  public static Device tainted(Device device, String key, String effect) {
    return new DeviceBuilder(device)
        .withTaints(new DeviceTaintBuilder().withKey(key).withEffect(effect).build())
        .build();
  }

  /** The shared offering's device: memory consumable in whole GiB, all of it by default. */
  public static Device shared(int minor, long memoryGib) {
    var memory = new Quantity(Long.toString(memoryGib * GIB));
    return new DeviceBuilder(gpu(minor, memoryGib))
        .withAllowMultipleAllocations(true)
        .withCapacity(
            Map.of(
                "memory",
                new DeviceCapacityBuilder()
                    .withValue(memory)
                    .withRequestPolicy(
                        new CapacityRequestPolicyBuilder()
                            .withDefault(memory)
                            .withNewValidRange()
                            .withMin(new Quantity(Long.toString(GIB)))
                            .withMax(memory)
                            .withStep(new Quantity(Long.toString(GIB)))
                            .endValidRange()
                            .build())
                    .build()))
        .build();
  }

  /** A mig-dynamic whole GPU: consumes every counter of its set. */
  public static Device wholeGpu(int minor, int slices, long memoryGib) {
    var consumed = new LinkedHashMap<String, Counter>();
    for (int s = 0; s < slices; s++) {
      consumed.put("memory-slice-" + s, new Counter(new Quantity("1")));
    }
    consumed.put("memory", new Counter(new Quantity(Long.toString(memoryGib * GIB))));
    return new DeviceBuilder(gpu(minor, memoryGib))
        .withConsumesCounters(
            new DeviceCounterConsumptionBuilder()
                .withCounterSet("gpu-" + minor + "-counters")
                .withCounters(consumed)
                .build())
        .build();
  }

  /** A mig-dynamic 1g.10gb placement at {@code start}. */
  public static Device placement(int minor, int start) {
    return new DeviceBuilder()
        .withName("gpu-" + minor + "-mig-1g.10gb-" + start)
        .withAttributes(
            Map.of(
                "type", string("mig"),
                "profile", string("1g.10gb"),
                "productName", string("NVIDIA H100 80GB HBM3")))
        .withCapacity(
            Map.of(
                "memory",
                new DeviceCapacityBuilder()
                    .withValue(new Quantity(Long.toString(10 * GIB)))
                    .build()))
        .withConsumesCounters(
            new DeviceCounterConsumptionBuilder()
                .withCounterSet("gpu-" + minor + "-counters")
                .withCounters(placementCounters(start))
                .build())
        .build();
  }

  /** As the renderer orders them: the memory slices first. */
  private static Map<String, Counter> placementCounters(int start) {
    var counters = new LinkedHashMap<String, Counter>();
    counters.put("memory-slice-" + start, new Counter(new Quantity("1")));
    counters.put("memory", new Counter(new Quantity(Long.toString(10 * GIB))));
    return counters;
  }

  /** A pending claim with one request of the class, with these selectors. */
  public static ResourceClaim pending(String name, String deviceClass, String... selectors) {
    return claim(name, deviceClass, Map.of(), selectors);
  }

  public static ResourceClaim claim(
      String name, String deviceClass, Map<String, String> capacity, String... selectors) {
    var request =
        new DeviceRequestBuilder()
            .withName("gpu")
            .withNewExactly()
            .withDeviceClassName(deviceClass);
    for (String s : selectors) {
      request = request.addNewSelector().withNewCel(s).endSelector();
    }
    if (!capacity.isEmpty()) {
      var requests = new LinkedHashMap<String, Quantity>();
      capacity.forEach((k, v) -> requests.put(k, new Quantity(v)));
      request = request.withNewCapacity().withRequests(requests).endCapacity();
    }
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .withRequests(request.endExactly().build())
        .endDevices()
        .endSpec()
        .build();
  }

  /** An allocated claim holding {@code device} of {@code node}'s pool, reserved for {@code pod}. */
  public static ResourceClaim allocated(
      String name, String node, String device, String pod, Map<String, String> consumed) {
    var quantities = new LinkedHashMap<String, Quantity>();
    consumed.forEach((k, v) -> quantities.put(k, new Quantity(v)));
    var claim = pending(name, "gpu.tessera.dev");
    return new ResourceClaimBuilder(claim)
        .withNewStatus()
        .withNewAllocation()
        .withNewDevices()
        .addNewResult()
        .withRequest("gpu")
        .withDriver(D)
        .withPool(node)
        .withDevice(device)
        .withConsumedCapacity(quantities.isEmpty() ? null : quantities)
        .endResult()
        .endDevices()
        .endAllocation()
        .addNewReservedFor()
        .withResource("pods")
        .withName(pod)
        .withUid(pod + "-uid")
        .endReservedFor()
        .endStatus()
        .build();
  }

  static io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute string(String value) {
    return new DeviceAttributeBuilder().withString(value).build();
  }

  public static <T> List<T> list(List<T> a, List<T> b) {
    var all = new ArrayList<T>(a);
    all.addAll(b);
    return all;
  }
}
