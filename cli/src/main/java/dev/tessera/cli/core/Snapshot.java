package dev.tessera.cli.core;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Map;

/**
 * What the plugin reads from the API server at one moment, as values: the driver's published
 * slices, every claim (allocated ones say what is taken), the DeviceClasses, and the health each
 * node's plugin reports in its GpuNode.
 *
 * @param health node, then device name, then its problems as {@code key=value}; devices without
 *     problems are not listed
 */
public record Snapshot(
    String driver,
    List<ResourceSlice> slices,
    List<ResourceClaim> claims,
    List<DeviceClass> classes,
    Map<String, Map<String, List<String>>> health) {
  public Snapshot {
    slices = List.copyOf(slices);
    claims = List.copyOf(claims);
    classes = List.copyOf(classes);
    health = Map.copyOf(health);
  }
}
