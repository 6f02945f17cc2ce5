package dev.tessera.controller.render;

import static dev.tessera.api.DeviceAttributeNames.MEMORY;

import dev.tessera.api.DeviceName;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * {@code mig-dynamic}: per GPU the whole GPU and every MIG placement as devices, all consuming from
 * one counter set of that GPU (partitionable devices). A counter per memory slice makes overlapping
 * placements — and the whole GPU next to any placement — impossible to allocate together; counters
 * for memory and each engine kind keep the sum of what is allocated within the GPU (e.g. at most
 * one {@code +me} profile, which takes the only OFA engine).
 *
 * <p>Which of the two a GPU offers follows what it can do at prepare time: Hopper and later switch
 * MIG mode without a GPU reset, so they offer both; Ampere needs a reset, so an A100 offers only
 * what its current mode allows (placements in MIG mode, the whole GPU otherwise). A GPU without MIG
 * is offered whole without counters.
 *
 * <p>Only the counters the memory slices do not already bound are published ({@link
 * ImpliedCounters}): on the simulated H100 that is the OFA engine, which only one {@code +me}
 * placement may take; memory, multiprocessors and the other engines can never be overdrawn by
 * placements that do not overlap. The allocatable sets are the same; the scheduler compares fewer.
 */
final class MigDynamicOffering {
  private static final Set<String> TOGGLES_WITHOUT_RESET = Set.of("Hopper", "Blackwell");

  /** A few GPU models a fleet; more keys than this are not worth remembering. */
  private static final int REMEMBERED_MODELS = 64;

  private final ImpliedCounters implied = new ImpliedCounters();

  /**
   * The search's answer per GPU model, as every resync renders: the counters follow from the GPU's
   * memory and its profile table alone, so those are the key, and a hit builds nothing.
   */
  private final Map<CounterModel, Set<String>> needed = new ConcurrentHashMap<>();

  private record CounterModel(long memoryBytes, List<MigProfile> profiles) {}

  static String counterSetName(Gpu gpu) {
    return "gpu-" + gpu.minor() + "-counters";
  }

  private static final String MEMORY_SLICE_PREFIX = "memory-slice-";

  static String memorySliceCounter(int slice) {
    return MEMORY_SLICE_PREFIX + slice;
  }

  List<DesiredSlice> render(NodeInventory node) {
    var counterSets = new ArrayList<CounterSet>();
    var partitioned = new ArrayList<DesiredSlice>();
    var plain = new ArrayList<Device>();
    for (Gpu gpu : node.gpus()) {
      if (gpu.migProfiles().isEmpty()) {
        plain.add(ExclusiveOffering.wholeGpu(node, gpu));
        continue;
      }
      Map<String, Long> totals = totals(gpu);
      Set<String> published = publishedCounters(gpu, totals);
      totals.keySet().retainAll(published);
      counterSets.add(counterSet(gpu, totals));
      var devices = new ArrayList<Device>();
      if (offersWhole(gpu)) {
        devices.add(wholeGpu(node, gpu, totals));
      }
      if (offersPlacements(gpu)) {
        for (MigProfile profile : gpu.migProfiles()) {
          // Every placement of a profile has the same facts: build them once and share them.
          var attributes = DeviceFacts.migAttributes(node, gpu, profile.name());
          var capacity = DeviceFacts.migCapacity(profile);
          for (MigPlacement placement : profile.placements()) {
            var consumed = consumed(profile, placement);
            consumed.keySet().retainAll(published);
            devices.add(placement(gpu, profile, placement, consumed, attributes, capacity));
          }
        }
      }
      // One slice per GPU keeps a change to one GPU to one slice write.
      for (List<Device> chunk :
          Chunks.of(devices, SliceLimits.MAX_DEVICES_WITH_ADVANCED_FEATURES)) {
        partitioned.add(new DesiredSlice.Devices(chunk));
      }
    }
    var slices = new ArrayList<DesiredSlice>();
    for (List<CounterSet> chunk : Chunks.of(counterSets, SliceLimits.MAX_COUNTER_SETS)) {
      slices.add(new DesiredSlice.Counters(chunk));
    }
    slices.addAll(partitioned);
    for (List<Device> chunk : Chunks.of(plain, SliceLimits.MAX_DEVICES)) {
      slices.add(new DesiredSlice.Devices(chunk));
    }
    return slices;
  }

  /**
   * What the scheduler must see of the GPU's counters: the memory slices, and what they do not
   * bound over every placement the GPU has (not only those offered now: the answer is per model).
   */
  private Set<String> publishedCounters(Gpu gpu, Map<String, Long> totals) {
    var model = new CounterModel(gpu.memoryBytes(), gpu.migProfiles());
    Set<String> known = needed.get(model);
    if (known != null) {
      return known;
    }
    var placements = new ArrayList<Map<String, Long>>();
    for (MigProfile profile : gpu.migProfiles()) {
      for (MigPlacement placement : profile.placements()) {
        placements.add(consumed(profile, placement));
      }
    }
    Set<String> slices =
        totals.keySet().stream()
            .filter(n -> n.startsWith(MEMORY_SLICE_PREFIX))
            .collect(Collectors.toSet());
    Set<String> answer = Set.copyOf(implied.needed(totals, placements, slices));
    if (needed.size() >= REMEMBERED_MODELS) {
      needed.clear();
    }
    needed.put(model, answer);
    return answer;
  }

  private static boolean offersWhole(Gpu gpu) {
    return TOGGLES_WITHOUT_RESET.contains(gpu.architecture()) || gpu.migMode() != MigMode.ENABLED;
  }

  private static boolean offersPlacements(Gpu gpu) {
    return TOGGLES_WITHOUT_RESET.contains(gpu.architecture()) || gpu.migMode() == MigMode.ENABLED;
  }

  /**
   * What the GPU has of each counter: its memory slices, memory, and the full profile's engines.
   */
  private static Map<String, Long> totals(Gpu gpu) {
    MigProfile full =
        gpu.migProfiles().stream()
            .max(Comparator.comparingInt(MigProfile::sliceCount))
            .orElseThrow();
    long memorySlices =
        gpu.migProfiles().stream()
            .flatMap(p -> p.placements().stream())
            .mapToLong(p -> (long) p.start() + p.size())
            .max()
            .orElseThrow();
    // Real GPUs have 8; a report of more is garbage, and would be built one counter at a time.
    if (memorySlices > SliceLimits.MAX_COUNTERS_PER_SET) {
      throw new IllegalArgumentException(
          "GPU "
              + gpu.uuid()
              + " has MIG placements up to memory slice "
              + memorySlices
              + ", more than a counter set holds ("
              + SliceLimits.MAX_COUNTERS_PER_SET
              + ")");
    }
    var totals = new LinkedHashMap<String, Long>();
    for (int slice = 0; slice < memorySlices; slice++) {
      totals.put(memorySliceCounter(slice), 1L);
    }
    totals.put(MEMORY, Math.max(gpu.memoryBytes(), full.memoryBytes()));
    totals.putAll(engines(full));
    return totals;
  }

  /**
   * Counter names must be DNS labels (the API server refuses camelCase there, unlike capacity
   * names), so the engine counters are the capacity names in kebab case.
   */
  static final String MULTIPROCESSORS_COUNTER = "multiprocessors";

  static final String COPY_ENGINES_COUNTER = "copy-engines";
  static final String DECODERS_COUNTER = "decoders";
  static final String ENCODERS_COUNTER = "encoders";
  static final String JPEG_ENGINES_COUNTER = "jpeg-engines";
  static final String OFA_ENGINES_COUNTER = "ofa-engines";

  private static Map<String, Long> engines(MigProfile profile) {
    var engines = new LinkedHashMap<String, Long>();
    engines.put(MULTIPROCESSORS_COUNTER, (long) profile.multiprocessors());
    engines.put(COPY_ENGINES_COUNTER, (long) profile.copyEngines());
    engines.put(DECODERS_COUNTER, (long) profile.decoders());
    engines.put(ENCODERS_COUNTER, (long) profile.encoders());
    engines.put(JPEG_ENGINES_COUNTER, (long) profile.jpegEngines());
    engines.put(OFA_ENGINES_COUNTER, (long) profile.ofaEngines());
    return engines;
  }

  private static CounterSet counterSet(Gpu gpu, Map<String, Long> totals) {
    return new CounterSetBuilder()
        .withName(counterSetName(gpu))
        .withCounters(counters(totals))
        .build();
  }

  private static Device wholeGpu(NodeInventory node, Gpu gpu, Map<String, Long> totals) {
    return new DeviceBuilder(ExclusiveOffering.wholeGpu(node, gpu))
        .withConsumesCounters(
            new DeviceCounterConsumptionBuilder()
                .withCounterSet(counterSetName(gpu))
                .withCounters(counters(totals))
                .build())
        .build();
  }

  /** Every counter a placement consumes something of. */
  private static Map<String, Long> consumed(MigProfile profile, MigPlacement placement) {
    var consumed = new LinkedHashMap<String, Long>();
    for (int slice = placement.start(); slice < placement.start() + placement.size(); slice++) {
      consumed.put(memorySliceCounter(slice), 1L);
    }
    consumed.put(MEMORY, profile.memoryBytes());
    consumed.putAll(engines(profile));
    consumed.values().removeIf(v -> v == 0);
    return consumed;
  }

  /**
   * Built with setters, not a builder, so the placements of a profile share one attribute and one
   * capacity map (a builder copies them; the render runs for every node on every resync).
   */
  private static Device placement(
      Gpu gpu,
      MigProfile profile,
      MigPlacement placement,
      Map<String, Long> consumed,
      Map<String, DeviceAttribute> attributes,
      Map<String, DeviceCapacity> capacity) {
    var consumption = new DeviceCounterConsumption();
    consumption.setCounterSet(counterSetName(gpu));
    consumption.setCounters(counters(consumed));
    var device = new Device();
    device.setName(new DeviceName.Mig(gpu.minor(), profile.name(), placement.start()).value());
    device.setAttributes(attributes);
    device.setCapacity(capacity);
    device.setConsumesCounters(List.of(consumption));
    return device;
  }

  private static Map<String, Counter> counters(Map<String, Long> values) {
    var counters = new LinkedHashMap<String, Counter>();
    values.forEach(
        (name, value) -> counters.put(name, new Counter(new Quantity(Long.toString(value)))));
    return counters;
  }
}
