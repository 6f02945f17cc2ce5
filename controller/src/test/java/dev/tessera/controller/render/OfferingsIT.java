package dev.tessera.controller.render;

import static dev.tessera.controller.render.SimulatedInventories.node;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What each offering publishes, on simulated nodes (GPU 0 in MIG mode with 3g@4 and 1g@0). */
class OfferingsIT {
  private final SliceRenderer renderer = new SliceRenderer();

  private List<Device> devices(List<DesiredSlice> slices) {
    return slices.stream()
        .filter(s -> s instanceof DesiredSlice.Devices)
        .flatMap(s -> ((DesiredSlice.Devices) s).devices().stream())
        .toList();
  }

  private Map<String, CounterSet> counterSets(List<DesiredSlice> slices) {
    return slices.stream()
        .filter(s -> s instanceof DesiredSlice.Counters)
        .flatMap(s -> ((DesiredSlice.Counters) s).counterSets().stream())
        .collect(Collectors.toMap(CounterSet::getName, c -> c));
  }

  @Test
  void exclusiveOffersEveryGpuNotInMigModeWithItsFacts() throws Exception {
    var devices = devices(renderer.render(node("H100-SXM5-80GB", 8), Offering.EXCLUSIVE));
    assertThat(devices)
        .extracting(Device::getName)
        .containsExactly("gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7");
    var gpu1 = devices.get(0);
    var attributes = gpu1.getAttributes();
    assertThat(attributes.get("type").getString()).isEqualTo("gpu");
    assertThat(attributes.get("uuid").getString()).startsWith("GPU-");
    assertThat(attributes.get("productName").getString()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(attributes.get("architecture").getString()).isEqualTo("Hopper");
    assertThat(attributes.get("cudaComputeCapability").getVersion()).isEqualTo("9.0.0");
    assertThat(attributes.get("driverVersion").getVersion()).isEqualTo("580.95.5");
    assertThat(attributes.get("cudaDriverVersion").getVersion()).isEqualTo("13.0.0");
    assertThat(attributes.get("resource.kubernetes.io/pciBusID").getString())
        .matches("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
    // The simulator puts the first half of the GPUs on NUMA node 0: the standard name, and the
    // legacy one.
    assertThat(attributes.get("resource.kubernetes.io/numaNode").getInt()).isZero();
    assertThat(attributes.get("numaNode").getInt()).isZero();
    assertThat(devices.get(6).getAttributes().get("resource.kubernetes.io/numaNode").getInt())
        .isEqualTo(1L);
    // NVML_BRAND_NVIDIA, named as nvidia-smi names it (NVIDIA's driver says "Nvidia").
    assertThat(attributes.get("brand").getString()).isEqualTo("NVIDIA");
    // gpu-1 is on bus 0x2a; the simulated sysfs puts it under root complex pci0000:20.
    assertThat(attributes.get("resource.kubernetes.io/pcieRoot").getString())
        .isEqualTo("pci0000:20");
    assertThat(gpu1.getCapacity().get("memory").getValue().getNumericalAmount())
        .isGreaterThan(new BigDecimal(79L << 30));
  }

  @Test
  void migStaticOffersTheMigDevicesThatExistAndTheOtherGpusWhole() throws Exception {
    var devices = devices(renderer.render(node("H100-SXM5-80GB", 8), Offering.MIG_STATIC));
    assertThat(devices)
        .extracting(Device::getName)
        .contains("gpu-0-mig-3g40gb-4", "gpu-0-mig-1g10gb-0", "gpu-7")
        .doesNotContain("gpu-0")
        .hasSize(9);
    var mig =
        devices.stream()
            .filter(d -> d.getName().equals("gpu-0-mig-3g40gb-4"))
            .findFirst()
            .orElseThrow();
    assertThat(mig.getAttributes().get("type").getString()).isEqualTo("mig");
    assertThat(mig.getAttributes().get("profile").getString()).isEqualTo("3g.40gb");
    assertThat(mig.getAttributes().get("uuid").getString()).startsWith("MIG-");
    assertThat(mig.getAttributes().get("parentUUID").getString()).startsWith("GPU-");
    assertThat(mig.getAttributes().get("resource.kubernetes.io/numaNode").getInt()).isZero();
    assertThat(mig.getCapacity().get("multiprocessors").getValue().getAmount()).isEqualTo("60");
  }

  @Test
  void migDynamicOnH100sOffersTheWholeGpuAndAll25PlacementsPerGpu() throws Exception {
    List<DesiredSlice> slices = renderer.render(node("H100-SXM5-80GB", 16), Offering.MIG_DYNAMIC);
    assertThat(slices.stream().filter(s -> s instanceof DesiredSlice.Counters)).hasSize(2);
    assertThat(counterSets(slices)).hasSize(16);
    var devices = devices(slices);
    assertThat(devices).hasSize(16 * 26);

    // The MIG user guide's H100-80GB placements (nvidia-smi mig -lgipp), profile by profile.
    var gpu3 =
        devices.stream().filter(d -> d.getName().startsWith("gpu-3")).map(Device::getName).toList();
    assertThat(gpu3)
        .containsExactlyInAnyOrder(
            "gpu-3",
            "gpu-3-mig-1g10gb-0",
            "gpu-3-mig-1g10gb-1",
            "gpu-3-mig-1g10gb-2",
            "gpu-3-mig-1g10gb-3",
            "gpu-3-mig-1g10gb-4",
            "gpu-3-mig-1g10gb-5",
            "gpu-3-mig-1g10gb-6",
            "gpu-3-mig-1g10gbme-0",
            "gpu-3-mig-1g10gbme-1",
            "gpu-3-mig-1g10gbme-2",
            "gpu-3-mig-1g10gbme-3",
            "gpu-3-mig-1g10gbme-4",
            "gpu-3-mig-1g10gbme-5",
            "gpu-3-mig-1g10gbme-6",
            "gpu-3-mig-1g20gb-0",
            "gpu-3-mig-1g20gb-2",
            "gpu-3-mig-1g20gb-4",
            "gpu-3-mig-1g20gb-6",
            "gpu-3-mig-2g20gb-0",
            "gpu-3-mig-2g20gb-2",
            "gpu-3-mig-2g20gb-4",
            "gpu-3-mig-3g40gb-0",
            "gpu-3-mig-3g40gb-4",
            "gpu-3-mig-4g40gb-0",
            "gpu-3-mig-7g80gb-0");
  }

  @Test
  void countersLetTwoDevicesOfAGpuBeAllocatedTogetherExactlyWhenTheHardwareCan() throws Exception {
    List<DesiredSlice> slices = renderer.render(node("H100-SXM5-80GB", 1), Offering.MIG_DYNAMIC);
    CounterSet set = counterSets(slices).get("gpu-0-counters");
    List<Device> devices = devices(slices);
    for (Device a : devices) {
      for (Device b : devices) {
        if (a == b) {
          continue;
        }
        boolean fits = fitsTogether(set, a, b);
        boolean hardwareCan =
            !a.getName().equals("gpu-0")
                && !b.getName().equals("gpu-0")
                && !overlap(a, b)
                && !(a.getName().contains("gbme") && b.getName().contains("gbme"));
        assertThat(fits).as("%s with %s", a.getName(), b.getName()).isEqualTo(hardwareCan);
      }
    }
  }

  /**
   * The sets of placements the scheduler may allocate together on a GPU are exactly those the
   * hardware allows — placements on disjoint memory slices, and within the full profile's memory,
   * multiprocessors and engines — though only the counters that decide something are published.
   */
  @ParameterizedTest
  @ValueSource(strings = {"A100-SXM4-40GB", "H100-SXM5-80GB", "H200-SXM5-141GB"})
  void migDynamicCountersAllowExactlyTheSetsOfPlacementsTheHardwareAllows(String model)
      throws Exception {
    NodeInventory node = node(model, 1);
    Gpu gpu = node.gpus().get(0);
    List<DesiredSlice> slices = renderer.render(node, Offering.MIG_DYNAMIC);
    CounterSet set = counterSets(slices).get("gpu-0-counters");
    Map<String, Device> published =
        devices(slices).stream()
            .filter(d -> d.getName().startsWith("gpu-0-mig-"))
            .collect(Collectors.toMap(Device::getName, d -> d));

    List<String> names = new ArrayList<>();
    List<long[]> hardware = new ArrayList<>();
    MigProfile full =
        gpu.migProfiles().stream().max(Comparator.comparingInt(MigProfile::sliceCount)).get();
    long[] limits = resources(full, Math.max(gpu.memoryBytes(), full.memoryBytes()), null);
    for (MigProfile profile : gpu.migProfiles()) {
      for (MigPlacement placement : profile.placements()) {
        names.add(new DeviceName.Mig(0, profile.name(), placement.start()).value());
        hardware.add(resources(profile, profile.memoryBytes(), placement));
      }
    }
    assertThat(published.keySet()).containsExactlyInAnyOrderElementsOf(names);

    Set<Set<String>> hardwareAllows = new HashSet<>();
    Set<Set<String>> countersAllow = new HashSet<>();
    enumerate(
        names, 0, new ArrayList<>(), hardwareAllows, chosen -> fits(chosen, hardware, limits));
    enumerate(
        names,
        0,
        new ArrayList<>(),
        countersAllow,
        chosen ->
            fitsTogether(set, chosen.stream().map(i -> published.get(names.get(i))).toList()));
    assertThat(countersAllow).isEqualTo(hardwareAllows).hasSizeGreaterThan(100);
    // Fewer counters than the hardware has: the memory slices decide most, OFA the +me profile.
    assertThat(set.getCounters().keySet())
        .contains("memory-slice-0", "ofa-engines")
        .doesNotContain("memory", "multiprocessors", "copy-engines");
  }

  /** Memory slices (one per slot), memory, SMs and the engines; null placement: the totals. */
  private static long[] resources(MigProfile p, long memory, MigPlacement placement) {
    long[] r = new long[8 + 7];
    for (int s = 0; s < 8; s++) {
      r[s] =
          placement == null || (s >= placement.start() && s < placement.start() + placement.size())
              ? 1
              : 0;
    }
    long[] rest = {
      memory,
      p.multiprocessors(),
      p.copyEngines(),
      p.decoders(),
      p.encoders(),
      p.jpegEngines(),
      p.ofaEngines()
    };
    System.arraycopy(rest, 0, r, 8, rest.length);
    return r;
  }

  private static boolean fits(List<Integer> chosen, List<long[]> consumed, long[] limits) {
    for (int r = 0; r < limits.length; r++) {
      long sum = 0;
      for (int i : chosen) {
        sum += consumed.get(i)[r];
      }
      if (sum > limits[r]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every allowed set, reached by growing allowed sets (both rules allow every subset of an allowed
   * set).
   */
  private static void enumerate(
      List<String> names,
      int from,
      List<Integer> chosen,
      Set<Set<String>> allowed,
      java.util.function.Predicate<List<Integer>> allows) {
    allowed.add(chosen.stream().map(names::get).collect(Collectors.toSet()));
    for (int i = from; i < names.size(); i++) {
      chosen.add(i);
      if (allows.test(chosen)) {
        enumerate(names, i + 1, chosen, allowed, allows);
      }
      chosen.remove(chosen.size() - 1);
    }
  }

  @Test
  void migDynamicOnAmpereOffersOnlyWhatTheCurrentMigModeAllows() throws Exception {
    var devices = devices(renderer.render(node("A100-SXM4-40GB", 2), Offering.MIG_DYNAMIC));
    var names = devices.stream().map(Device::getName).toList();
    assertThat(names).doesNotContain("gpu-0").contains("gpu-1", "gpu-0-mig-7g40gb-0");
    assertThat(names.stream().filter(n -> n.startsWith("gpu-1-mig"))).isEmpty();
    assertThat(names.stream().filter(n -> n.startsWith("gpu-0-mig"))).hasSize(25);
  }

  @Test
  void migDynamicOffersGpusWithoutMigWholeWithoutCounters() throws Exception {
    List<DesiredSlice> slices = renderer.render(node("L40S", 8), Offering.MIG_DYNAMIC);
    assertThat(counterSets(slices)).isEmpty();
    assertThat(devices(slices))
        .hasSize(8)
        .allSatisfy(d -> assertThat(d.getConsumesCounters()).isEmpty());
  }

  @Test
  void sharedGpusTakeManyClaimsThatEachConsumeMemory() throws Exception {
    var devices = devices(renderer.render(node("H100-SXM5-80GB", 2), Offering.SHARED));
    assertThat(devices).extracting(Device::getName).containsExactly("gpu-1");
    var gpu = devices.get(0);
    assertThat(gpu.getAllowMultipleAllocations()).isTrue();
    var memory = gpu.getCapacity().get("memory");
    assertThat(memory.getRequestPolicy().getValidRange().getStep().getAmount())
        .isEqualTo(Long.toString(1L << 30));
    assertThat(memory.getRequestPolicy().getDefault()).isEqualTo(memory.getValue());
    assertThat(gpu.getCapacity().get("compute").getRequestPolicy().getDefault().getAmount())
        .isEqualTo("0");
  }

  private static boolean overlap(Device a, Device b) {
    return !java.util.Collections.disjoint(memorySlices(a), memorySlices(b));
  }

  private static java.util.Set<String> memorySlices(Device d) {
    return d.getConsumesCounters().get(0).getCounters().keySet().stream()
        .filter(n -> n.startsWith("memory-slice-"))
        .collect(Collectors.toSet());
  }

  private static boolean fitsTogether(CounterSet set, Device a, Device b) {
    return fitsTogether(set, List.of(a, b));
  }

  private static boolean fitsTogether(CounterSet set, List<Device> chosen) {
    Map<String, BigDecimal> used = new HashMap<>();
    for (Device d : chosen) {
      d.getConsumesCounters()
          .get(0)
          .getCounters()
          .forEach((n, c) -> used.merge(n, c.getValue().getNumericalAmount(), BigDecimal::add));
    }
    Map<String, BigDecimal> totals = new LinkedHashMap<>();
    set.getCounters().forEach((n, c) -> totals.put(n, c.getValue().getNumericalAmount()));
    return used.entrySet().stream()
        .allMatch(e -> e.getValue().compareTo(totals.get(e.getKey())) <= 0);
  }
}
