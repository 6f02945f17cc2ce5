package dev.tessera.controller.events;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.events.EventType;
import dev.tessera.api.events.InvolvedObject;
import dev.tessera.api.events.Occurrence;
import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Events a change of a node's device health tells on its GpuNode (pure): {@code DeviceTainted}
 * for each problem a device newly has (a Warning when it keeps new claims off the device), {@code
 * DeviceRecovered} when a device that had problems has none left and its taints are lifted.
 */
public final class HealthTransitions {
  public static final String TAINTED = "DeviceTainted";
  public static final String RECOVERED = "DeviceRecovered";

  private HealthTransitions() {}

  public static List<Occurrence> between(
      String node, String gpuNodeUid, NodeHealth before, NodeHealth after) {
    var gpuNode =
        new InvolvedObject(GpuNodeNames.API_VERSION, GpuNodeNames.KIND, "", node, gpuNodeUid);
    Map<String, List<DeviceProblem>> was = byDevice(before);
    Map<String, List<DeviceProblem>> now = byDevice(after);
    var events = new ArrayList<Occurrence>();
    now.forEach(
        (device, problems) -> {
          List<DeviceProblem> earlier = was.getOrDefault(device, List.of());
          for (DeviceProblem problem : problems) {
            if (earlier.stream().noneMatch(p -> sameTaint(p, problem))) {
              events.add(
                  new Occurrence(
                      gpuNode,
                      problem.makesUnhealthy() ? EventType.WARNING : EventType.NORMAL,
                      TAINTED,
                      "tainted %s with %s%s: %s"
                          .formatted(
                              device,
                              problem.key(),
                              problem.value().isEmpty() ? "" : "=" + problem.value(),
                              problem.message())));
            }
          }
        });
    was.forEach(
        (device, problems) -> {
          if (!problems.isEmpty() && now.getOrDefault(device, List.of()).isEmpty()) {
            events.add(
                new Occurrence(
                    gpuNode,
                    EventType.NORMAL,
                    RECOVERED,
                    "lifted the taints of %s: %s"
                        .formatted(
                            device,
                            String.join(
                                ", ", problems.stream().map(DeviceProblem::key).toList()))));
          }
        });
    return events;
  }

  private static boolean sameTaint(DeviceProblem a, DeviceProblem b) {
    return a.key().equals(b.key()) && a.value().equals(b.value()) && a.effect() == b.effect();
  }

  private static Map<String, List<DeviceProblem>> byDevice(NodeHealth health) {
    var map = new LinkedHashMap<String, List<DeviceProblem>>();
    for (DeviceHealth device : health.devices()) {
      map.put(device.device(), device.problems());
    }
    return map;
  }
}
