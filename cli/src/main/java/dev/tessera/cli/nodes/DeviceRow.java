package dev.tessera.cli.nodes;

import java.util.List;

/** One line of {@code kubectl tessera nodes}: a device and what holds it. */
public record DeviceRow(
    String node,
    String device,
    String type,
    String profile,
    String memory,
    String health,
    List<String> taints,
    List<String> claims,
    List<String> pods) {
  public DeviceRow {
    taints = List.copyOf(taints);
    claims = List.copyOf(claims);
    pods = List.copyOf(pods);
  }
}
