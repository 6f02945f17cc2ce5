package dev.tessera.plugin.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** A CDI spec file (container-device-interface SPEC.md); empty fields are not written. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record CdiSpec(
    String cdiVersion, String kind, List<Device> devices, ContainerEdits containerEdits) {
  public CdiSpec {
    devices = List.copyOf(devices);
  }

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Device(String name, ContainerEdits containerEdits) {}

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record ContainerEdits(List<String> env, List<DeviceNode> deviceNodes, List<Mount> mounts) {
    public ContainerEdits {
      env = List.copyOf(env);
      deviceNodes = List.copyOf(deviceNodes);
      mounts = List.copyOf(mounts);
    }
  }

  /**
   * A device node: {@code path} inside the container; {@code hostPath} only where the node lives
   * elsewhere on the host (a driver root other than /), which needs CDI 0.5.0.
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record DeviceNode(String path, String hostPath) {}

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Mount(String hostPath, String containerPath, List<String> options) {
    public Mount {
      options = List.copyOf(options);
    }
  }
}
