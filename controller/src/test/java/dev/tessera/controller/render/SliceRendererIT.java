package dev.tessera.controller.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rendering of every offering for nodes the NVML simulator reports (read through the plugin's own
 * binding and discovery): each simulator profile with 1, 8 and 16 GPUs. Every result must hold the
 * API's limits and reference only what exists.
 */
class SliceRendererIT {
  private final SliceRenderer renderer = new SliceRenderer();

  static Stream<Arguments> nodes() {
    var cases = new ArrayList<Arguments>();
    for (Offering offering : Offering.values()) {
      for (String profile : List.of("A100-SXM4-40GB", "H100-SXM5-80GB", "L40S")) {
        for (int gpus : List.of(1, 8, 16)) {
          cases.add(Arguments.of(offering, profile, gpus));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} on {1} x{2}")
  @MethodSource("nodes")
  void everySliceHoldsTheApiLimits(Offering offering, String profile, int gpus) throws Exception {
    List<DesiredSlice> slices = renderer.render(SimulatedInventories.node(profile, gpus), offering);

    var deviceNames = new HashSet<String>();
    var counterSets = new HashMap<String, CounterSet>();
    for (DesiredSlice slice : slices) {
      switch (slice) {
        case DesiredSlice.Counters c -> {
          assertThat(c.counterSets())
              .isNotEmpty()
              .hasSizeLessThanOrEqualTo(SliceLimits.MAX_COUNTER_SETS);
          for (CounterSet set : c.counterSets()) {
            assertThat(set.getCounters())
                .hasSizeLessThanOrEqualTo(SliceLimits.MAX_COUNTERS_PER_SET);
            assertThat(counterSets.put(set.getName(), set))
                .as("counter set %s twice", set.getName())
                .isNull();
          }
        }
        case DesiredSlice.Devices d -> {
          boolean advanced =
              d.devices().stream()
                  .anyMatch(x -> !x.getConsumesCounters().isEmpty() || !x.getTaints().isEmpty());
          assertThat(d.devices())
              .isNotEmpty()
              .hasSizeLessThanOrEqualTo(
                  advanced
                      ? SliceLimits.MAX_DEVICES_WITH_ADVANCED_FEATURES
                      : SliceLimits.MAX_DEVICES);
          for (Device device : d.devices()) {
            assertThat(device.getName())
                .matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")
                .hasSizeLessThanOrEqualTo(63);
            assertThat(deviceNames.add(device.getName()))
                .as("device %s twice", device.getName())
                .isTrue();
            assertThat(device.getAttributes().size() + device.getCapacity().size())
                .isLessThanOrEqualTo(SliceLimits.MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE);
            assertThat(device.getConsumesCounters()).hasSizeLessThanOrEqualTo(2);
          }
        }
      }
    }
    for (DesiredSlice slice : slices) {
      if (slice instanceof DesiredSlice.Devices d) {
        for (Device device : d.devices()) {
          for (DeviceCounterConsumption consumption : device.getConsumesCounters()) {
            CounterSet set = counterSets.get(consumption.getCounterSet());
            assertThat(set).as("%s consumes from a missing set", device.getName()).isNotNull();
            consumption
                .getCounters()
                .forEach(
                    (name, counter) -> {
                      assertThat(set.getCounters()).containsKey(name);
                      assertThat(counter.getValue().getNumericalAmount())
                          .isLessThanOrEqualTo(
                              set.getCounters().get(name).getValue().getNumericalAmount());
                    });
          }
        }
      }
    }
  }
}
