package dev.tessera.controller.render;

import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Puts the node plugin's reported device problems on the rendered devices as device taints: a MIG
 * device (or MIG placement) carries its parent GPU's problems too, so the scheduler gives no slice
 * of a failing GPU. Device slices are re-cut to the smaller per-slice limit that tainted devices
 * require. Pure.
 */
final class HealthTaints {
  /** The API's limit on taints per device. */
  static final int MAX_TAINTS_PER_DEVICE = 16;

  private HealthTaints() {}

  /**
   * @param unhealthy the effect of a problem that makes a device unhealthy (a fatal XID, say):
   *     {@code NoSchedule} keeps new claims off it, {@code NoExecute} also evicts the pods using it
   */
  static List<DesiredSlice> apply(
      List<DesiredSlice> slices, NodeHealth health, TaintEffect unhealthy) {
    if (health.devices().isEmpty()) {
      return slices;
    }
    var counters = new ArrayList<DesiredSlice>();
    var devices = new ArrayList<Device>();
    boolean anyTainted = false;
    for (DesiredSlice slice : slices) {
      switch (slice) {
        case DesiredSlice.Counters c -> counters.add(c);
        case DesiredSlice.Devices d -> {
          for (Device device : d.devices()) {
            List<DeviceTaint> taints = taints(health.problemsOf(device.getName()), unhealthy);
            anyTainted |= !taints.isEmpty();
            devices.add(
                taints.isEmpty() ? device : new DeviceBuilder(device).withTaints(taints).build());
          }
        }
      }
    }
    if (!anyTainted) {
      return slices;
    }
    // Tainted devices count as an advanced feature: every device slice of the pool gets the lower
    // limit, which keeps the cut stable while devices fall ill and recover.
    var result = new ArrayList<DesiredSlice>(counters);
    Chunks.of(devices, SliceLimits.MAX_DEVICES_WITH_ADVANCED_FEATURES)
        .forEach(chunk -> result.add(new DesiredSlice.Devices(chunk)));
    return result;
  }

  private static List<DeviceTaint> taints(List<DeviceProblem> problems, TaintEffect unhealthy) {
    return problems.stream()
        // the worst first, so they are the ones kept if a device ever had more than the limit
        .sorted(
            Comparator.comparing((DeviceProblem p) -> !p.makesUnhealthy())
                .thenComparing(DeviceProblem::key)
                .thenComparing(DeviceProblem::value))
        .limit(MAX_TAINTS_PER_DEVICE)
        .map(
            p ->
                new DeviceTaintBuilder()
                    .withKey(p.key())
                    .withValue(p.value().isEmpty() ? null : p.value())
                    .withEffect((p.makesUnhealthy() ? unhealthy : p.effect()).apiValue())
                    .withTimeAdded(p.since().truncatedTo(ChronoUnit.SECONDS).toString())
                    .build())
        .toList();
  }
}
