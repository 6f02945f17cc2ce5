package dev.tessera.plugin.cdi;

import java.util.List;

/**
 * Builds the CDI spec of one claim (pure): one CDI device per allocated device, named after the
 * claim UID so a name is never reused (runtimes cache specs), plus the edits every GPU container
 * needs (control nodes, driver files, {@code NVIDIA_VISIBLE_DEVICES=void} so NVIDIA's own runtime
 * hook, if installed, does not inject GPUs behind our back).
 */
public final class CdiSpecBuilder {
  private final String kind;
  private final CdiSpec.ContainerEdits commonEdits;

  /**
   * @param driverName the DRA driver name; the CDI kind is {@code k8s.<driver>/claim}
   * @param commonEdits control nodes, driver mounts and env shared by every claim
   */
  public CdiSpecBuilder(String driverName, CdiSpec.ContainerEdits commonEdits) {
    this.kind = "k8s." + driverName + "/claim";
    this.commonEdits = commonEdits;
  }

  /**
   * One device of the claim and what it brings into the container: its device nodes, and for a
   * shared device the env and mounts of its sharing (an MPS daemon's pipe directory and limits).
   */
  public record DeviceEdits(
      String deviceName,
      List<CdiSpec.DeviceNode> deviceNodes,
      List<String> env,
      List<CdiSpec.Mount> mounts) {
    public DeviceEdits {
      deviceNodes = List.copyOf(deviceNodes);
      env = List.copyOf(env);
      mounts = List.copyOf(mounts);
    }

    public DeviceEdits(String deviceName, List<CdiSpec.DeviceNode> deviceNodes) {
      this(deviceName, deviceNodes, List.of(), List.of());
    }
  }

  public CdiSpec build(String claimUid, List<DeviceEdits> devices) {
    List<CdiSpec.Device> cdiDevices =
        devices.stream()
            .map(
                d ->
                    new CdiSpec.Device(
                        cdiName(claimUid, d.deviceName()),
                        new CdiSpec.ContainerEdits(d.env(), d.deviceNodes(), d.mounts())))
            .toList();
    CdiSpec draft = new CdiSpec(null, kind, cdiDevices, commonEdits);
    return new CdiSpec(CdiVersions.minimum(draft), kind, cdiDevices, commonEdits);
  }

  /** The fully qualified CDI device ID the kubelet passes to the runtime. */
  public String deviceId(String claimUid, String deviceName) {
    return kind + "=" + cdiName(claimUid, deviceName);
  }

  private static String cdiName(String claimUid, String deviceName) {
    return claimUid + "-" + deviceName;
  }
}
