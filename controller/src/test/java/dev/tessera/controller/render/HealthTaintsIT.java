package dev.tessera.controller.render;

import static dev.tessera.controller.render.SimulatedInventories.node;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.HealthTaintKeys;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Device taints from reported health, on simulated nodes (GPU 0 in MIG mode with 3g@4, 1g@0). */
class HealthTaintsIT {
  private static final Instant SINCE = Instant.parse("2026-11-30T12:00:00.123Z");
  private final SliceRenderer renderer = new SliceRenderer();

  private static NodeHealth problem(String device, String key, String value, TaintEffect effect) {
    return new NodeHealth(
        List.of(
            new DeviceHealth(
                device, List.of(new DeviceProblem(key, value, effect, "seen", SINCE, SINCE)))));
  }

  private static List<Device> devices(List<DesiredSlice> slices) {
    return slices.stream()
        .filter(s -> s instanceof DesiredSlice.Devices)
        .flatMap(s -> ((DesiredSlice.Devices) s).devices().stream())
        .toList();
  }

  @Test
  void anUnhealthyGpuTaintsItselfAndEveryMigPlacementOfItAndNothingElse() throws Exception {
    var health = problem("gpu-1", HealthTaintKeys.XID, "48", TaintEffect.NO_SCHEDULE);

    var slices = renderer.render(node("H100-SXM5-80GB", 2), Offering.MIG_DYNAMIC, health);

    for (Device device : devices(slices)) {
      if (device.getName().equals("gpu-1") || device.getName().startsWith("gpu-1-mig-")) {
        assertThat(device.getTaints())
            .as(device.getName())
            .singleElement()
            .extracting(
                DeviceTaint::getKey,
                DeviceTaint::getValue,
                DeviceTaint::getEffect,
                DeviceTaint::getTimeAdded)
            .containsExactly(HealthTaintKeys.XID, "48", "NoSchedule", "2026-11-30T12:00:00Z");
      } else {
        assertThat(device.getTaints()).as(device.getName()).isNullOrEmpty();
      }
    }
    assertThat(devices(slices)).anyMatch(d -> d.getName().startsWith("gpu-1-mig-"));
    // The counter slices are untouched and every slice keeps the advanced-feature limit.
    assertThat(slices).filteredOn(s -> s instanceof DesiredSlice.Counters).isNotEmpty();
    assertThat(slices)
        .filteredOn(s -> s instanceof DesiredSlice.Devices)
        .allSatisfy(
            s ->
                assertThat(((DesiredSlice.Devices) s).devices())
                    .hasSizeLessThanOrEqualTo(SliceLimits.MAX_DEVICES_WITH_ADVANCED_FEATURES));
  }

  @Test
  void aMigDevicesOwnProblemTaintsOnlyThatMigDevice() throws Exception {
    var health =
        problem("gpu-0-mig-3g40gb-4", HealthTaintKeys.ECC, "double-bit", TaintEffect.NO_SCHEDULE);

    var devices = devices(renderer.render(node("H100-SXM5-80GB", 2), Offering.MIG_STATIC, health));

    assertThat(devices)
        .filteredOn(d -> d.getTaints() != null && !d.getTaints().isEmpty())
        .extracting(Device::getName)
        .containsExactly("gpu-0-mig-3g40gb-4");
  }

  @Test
  void anInformationalXidIsATaintWithEffectNone() throws Exception {
    var health = problem("gpu-1", HealthTaintKeys.XID, "13", TaintEffect.NONE);

    var devices = devices(renderer.render(node("H100-SXM5-80GB", 2), Offering.SHARED, health));

    assertThat(devices)
        .filteredOn(d -> d.getName().equals("gpu-1"))
        .singleElement()
        .satisfies(
            d ->
                assertThat(d.getTaints())
                    .extracting(DeviceTaint::getEffect)
                    .containsExactly("None"));
  }

  @Test
  void allHealthyRendersExactlyWhatTheOfferingRenders() throws Exception {
    var node = node("H100-SXM5-80GB", 2);
    assertThat(renderer.render(node, Offering.MIG_DYNAMIC, NodeHealth.ALL_HEALTHY))
        .isEqualTo(renderer.render(node, Offering.MIG_DYNAMIC));
  }

  @Test
  void aTaintedPoolIsRecutToTheAdvancedFeatureLimit() {
    List<Device> hundred =
        IntStream.range(0, 100)
            .mapToObj(i -> new DeviceBuilder().withName("gpu-" + i).build())
            .toList();
    var slices = List.<DesiredSlice>of(new DesiredSlice.Devices(hundred.subList(0, 100)));

    var tainted =
        HealthTaints.apply(
            slices,
            problem("gpu-7", HealthTaintKeys.GPU_LOST, "", TaintEffect.NO_SCHEDULE),
            TaintEffect.NO_SCHEDULE);

    assertThat(tainted).hasSize(2);
    assertThat(((DesiredSlice.Devices) tainted.get(0)).devices()).hasSize(64);
    assertThat(((DesiredSlice.Devices) tainted.get(1)).devices()).hasSize(36);
    var lost = ((DesiredSlice.Devices) tainted.get(0)).devices().get(7);
    assertThat(lost.getTaints()).singleElement().satisfies(t -> assertThat(t.getValue()).isNull());
  }

  @Test
  void anOperatorCanHaveUnhealthyDevicesEvictTheirPodsAndInformationalTaintsStayNone()
      throws Exception {
    var evicting = new SliceRenderer(TaintEffect.NO_EXECUTE);
    var health =
        new NodeHealth(
            List.of(
                new DeviceHealth(
                    "gpu-1",
                    List.of(
                        new DeviceProblem(
                            HealthTaintKeys.XID,
                            "79",
                            TaintEffect.NO_SCHEDULE,
                            "fell off the bus",
                            SINCE,
                            SINCE),
                        new DeviceProblem(
                            HealthTaintKeys.XID,
                            "13",
                            TaintEffect.NONE,
                            "application error",
                            SINCE,
                            SINCE)))));

    var gpu1 =
        devices(evicting.render(node("H100-SXM5-80GB", 2), Offering.EXCLUSIVE, health)).stream()
            .filter(d -> d.getName().equals("gpu-1"))
            .findFirst()
            .orElseThrow();

    assertThat(gpu1.getTaints())
        .extracting(DeviceTaint::getValue, DeviceTaint::getEffect)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("79", "NoExecute"),
            org.assertj.core.groups.Tuple.tuple("13", "None"));
  }
}
