package dev.tessera.plugin.prepare;

import dev.tessera.plugin.cdi.CdiSpec;
import dev.tessera.plugin.cdi.CdiSpecBuilder.DeviceEdits;
import dev.tessera.plugin.cdi.NodePaths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The device nodes each planned device brings into a container: the GPU's {@code /dev/nvidia<N>},
 * and for a MIG device also the capability nodes of its GPU and compute instance, without which
 * CUDA cannot open the instance.
 */
public final class DeviceEditsResolver {
  private final NodePaths paths;

  public DeviceEditsResolver(NodePaths paths) {
    this.paths = paths;
  }

  public List<DeviceEdits> resolve(List<PlannedDevice> plan) throws PrepareException {
    Map<String, DeviceEdits> byName = new LinkedHashMap<>();
    for (PlannedDevice device : plan) {
      if (!byName.containsKey(device.name().value())) {
        byName.put(device.name().value(), edits(device));
      }
    }
    return List.copyOf(byName.values());
  }

  private DeviceEdits edits(PlannedDevice device) throws PrepareException {
    var nodes = new ArrayList<CdiSpec.DeviceNode>();
    nodes.add(paths.deviceNode("/dev/nvidia" + device.gpu().minor()));
    if (device.migDevice() != null) {
      int minor = device.gpu().minor();
      int gi = device.migDevice().gpuInstanceId();
      int ci = device.migDevice().computeInstanceId();
      String giCap =
          paths
              .migCapabilityNode(minor, gi, null)
              .orElseThrow(() -> missingCapability(device, "GPU instance " + gi));
      String ciCap =
          paths
              .migCapabilityNode(minor, gi, ci)
              .orElseThrow(() -> missingCapability(device, "compute instance " + ci));
      nodes.add(paths.deviceNode(giCap));
      nodes.add(paths.deviceNode(ciCap));
    }
    return new DeviceEdits(device.name().value(), nodes);
  }

  private static PrepareException missingCapability(PlannedDevice device, String what) {
    return new PrepareException(
        "MIG device "
            + device.name().value()
            + ": the driver announces no capability node for "
            + what
            + " of GPU "
            + device.gpu().minor());
  }
}
