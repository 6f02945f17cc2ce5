package dev.tessera.plugin.prepare;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.Sharing;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.plugin.cdi.CdiSpec;
import dev.tessera.plugin.cdi.CdiSpecBuilder.DeviceEdits;
import dev.tessera.plugin.cdi.NodePaths;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.sharing.MpsPaths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The device nodes each planned device brings into a container: the GPU's {@code /dev/nvidia<N>},
 * and for a MIG device also the capability nodes of its GPU and compute instance, without which
 * CUDA cannot open the instance. A device shared through MPS also brings its daemon's pipe
 * directory, a shared-memory directory at {@code /dev/shm}, and the claim's limits as the env the
 * MPS client reads. A device with admin access brings what it is (for a MIG device that does not
 * exist, its GPU's node), the driver's MIG monitoring capability on a GPU that can do MIG, and
 * {@code TESSERA_ADMIN_ACCESS=true}; never the MIG config capability, which would let the container
 * reshape the GPU under other claims.
 */
public final class DeviceEditsResolver {
  private static final List<String> RW_MOUNT = List.of("rw", "nosuid", "nodev", "rbind");
  private static final long MIB = 1L << 20;

  /** Tells the container its devices were handed over with admin access. */
  public static final String ADMIN_ACCESS_ENV = "TESSERA_ADMIN_ACCESS=true";

  private final NodePaths paths;
  private final MpsPaths mps;

  public DeviceEditsResolver(NodePaths paths, MpsPaths mps) {
    this.paths = paths;
    this.mps = mps;
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
    if (device.adminAccess()) {
      return adminEdits(device, nodes);
    }
    if (device.config().sharing() instanceof Sharing.Mps limits) {
      return mpsEdits(device, nodes, limits);
    }
    return new DeviceEdits(device.name().value(), nodes);
  }

  /**
   * The limits go to the MPS client as env: it applies them to every process of the container. The
   * memory limit names device ordinal 0, the first (and, with MPS, only) GPU the container sees of
   * this device.
   */
  private DeviceEdits mpsEdits(
      PlannedDevice device, List<CdiSpec.DeviceNode> nodes, Sharing.Mps limits) {
    var env = new ArrayList<String>();
    env.add("CUDA_MPS_PIPE_DIRECTORY=" + MpsPaths.CONTAINER_PIPE_DIR);
    limits
        .defaultActiveThreadPercentage()
        .ifPresent(p -> env.add("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + p));
    limits
        .defaultPinnedDeviceMemoryLimitBytes()
        // MPS takes whole megabytes; rounding down never grants more than the claim has.
        .ifPresent(b -> env.add("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=" + b / MIB + "M"));
    var mounts =
        List.of(
            new CdiSpec.Mount(
                mps.pipeDir(device.uuid()).toString(), MpsPaths.CONTAINER_PIPE_DIR, RW_MOUNT),
            new CdiSpec.Mount(mps.shmDir(device.uuid()).toString(), "/dev/shm", RW_MOUNT));
    return new DeviceEdits(device.name().value(), nodes, env, mounts);
  }

  /**
   * A monitoring container needs the MIG monitor capability to see MIG devices through NVML. It is
   * required where MIG is on (a MIG device, or a GPU in MIG mode); a GPU that can do MIG but has it
   * off gets it when the driver announces it, so it sees devices made later.
   */
  private DeviceEdits adminEdits(PlannedDevice device, List<CdiSpec.DeviceNode> nodes)
      throws PrepareException {
    var all = new ArrayList<>(nodes);
    if (device.gpu().migMode() != MigMode.UNSUPPORTED) {
      Optional<String> monitor = paths.migMonitorCapabilityNode();
      boolean migOn =
          device.name() instanceof DeviceName.Mig || device.gpu().migMode() == MigMode.ENABLED;
      if (monitor.isEmpty() && migOn) {
        throw missingCapability(device, "MIG monitoring");
      }
      monitor.ifPresent(m -> all.add(paths.deviceNode(m)));
    }
    return new DeviceEdits(device.name().value(), all, List.of(ADMIN_ACCESS_ENV), List.of());
  }

  private static PrepareException missingCapability(PlannedDevice device, String what) {
    return new PrepareException(
        (device.name() instanceof DeviceName.Mig ? "MIG device " : "GPU ")
            + device.name().value()
            + ": the driver announces no capability node for "
            + what
            + " of GPU "
            + device.gpu().minor());
  }
}
