package dev.tessera.api.health;

import dev.tessera.api.DeviceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The health of a node's devices as its plugin reports it: only devices with problems are listed;
 * every other device is healthy. A whole GPU's problems are also its MIG devices' problems.
 */
public record NodeHealth(List<DeviceHealth> devices) {
  public static final NodeHealth ALL_HEALTHY = new NodeHealth(List.of());

  public NodeHealth {
    devices = List.copyOf(devices);
  }

  /**
   * The problems that apply to a device of the pool: its own and, for a MIG device (or a MIG
   * placement), those of its parent GPU.
   */
  public List<DeviceProblem> problemsOf(String deviceName) {
    var problems = new ArrayList<DeviceProblem>();
    own(deviceName).ifPresent(health -> problems.addAll(health.problems()));
    if (DeviceName.parse(deviceName) instanceof DeviceName.Mig mig) {
      own(new DeviceName.Gpu(mig.parentMinor()).value())
          .ifPresent(health -> problems.addAll(health.problems()));
    }
    return problems;
  }

  public boolean healthy(String deviceName) {
    return problemsOf(deviceName).stream().noneMatch(DeviceProblem::makesUnhealthy);
  }

  /** How many listed devices are unhealthy (for the GpuNode printer column). */
  public long unhealthyCount() {
    return devices.stream().filter(d -> !d.healthy()).count();
  }

  private Optional<DeviceHealth> own(String deviceName) {
    return devices.stream().filter(d -> d.device().equals(deviceName)).findFirst();
  }
}
