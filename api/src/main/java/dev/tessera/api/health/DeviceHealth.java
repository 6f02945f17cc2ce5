package dev.tessera.api.health;

import java.util.List;

/**
 * The problems of one device, by its name in the node's pool ({@code gpu-<minor>} for a whole GPU,
 * a MIG device's name for problems NVML attributes to that MIG device alone).
 */
public record DeviceHealth(String device, List<DeviceProblem> problems) {
  public DeviceHealth {
    problems = List.copyOf(problems);
  }

  public boolean healthy() {
    return problems.stream().noneMatch(DeviceProblem::makesUnhealthy);
  }
}
