package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * A Node's status as a kubelet on a GPU node writes it: addresses, capacity, the four conditions,
 * the node's info, and the images it holds, as many as the kubelet reports by default ({@code
 * nodeStatusMaxImages}: 50), each named by digest and by tag. The controller reads none of it, but
 * a fleet's Nodes carry it, and whatever watches Nodes whole is sent it (~11 KiB a Node; the local
 * cluster's own kubelet writes the same fields).
 */
final class KubeletNodeStatus {
  /** The kubelet's default {@code nodeStatusMaxImages}. */
  static final int IMAGES = 50;

  private KubeletNodeStatus() {}

  /** The status of {@code nodeName}, its addresses and IDs drawn from its name. */
  static NodeStatus of(String nodeName, Instant now) {
    int index = nodeName.hashCode();
    RandomGenerator random = new SplittableRandom(index);
    var hex = HexFormat.of();
    String time = now.toString();
    var builder =
        new NodeStatusBuilder()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("10.%d.%d.%d".formatted(index >> 16 & 255, index >> 8 & 255, index & 255))
            .endAddress()
            .addNewAddress()
            .withType("Hostname")
            .withAddress(nodeName)
            .endAddress()
            .withCapacity(resources("128", "2113632468Ki"))
            .withAllocatable(resources("127", "2098952404Ki"))
            .withNewDaemonEndpoints()
            .withNewKubeletEndpoint(10250)
            .endDaemonEndpoints()
            .withNewNodeInfo()
            .withArchitecture("amd64")
            .withBootID(uuid(random, hex))
            .withContainerRuntimeVersion("containerd://2.2.9")
            .withKernelVersion("6.8.0-1031-nvidia")
            .withKubeProxyVersion("")
            .withKubeletVersion("v1.37.2")
            .withMachineID(hex.formatHex(bytes(random, 16)))
            .withOperatingSystem("linux")
            .withOsImage("Ubuntu 24.04.3 LTS")
            .withSystemUUID(uuid(random, hex))
            .endNodeInfo();
    for (String[] condition :
        new String[][] {
          {
            "MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory"
          },
          {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
          {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID"},
          {"Ready", "True", "KubeletReady", "kubelet is posting ready status"}
        }) {
      builder
          .addNewCondition()
          .withType(condition[0])
          .withStatus(condition[1])
          .withReason(condition[2])
          .withMessage(condition[3])
          .withLastHeartbeatTime(time)
          .withLastTransitionTime(time)
          .endCondition();
    }
    for (int i = 0; i < IMAGES; i++) {
      String repository = "nvcr.io/nvidia/workload-%02d".formatted(i);
      builder
          .addNewImage()
          .addToNames(repository + "@sha256:" + hex.formatHex(bytes(random, 32)))
          .addToNames(repository + ":25.%02d-py3".formatted(1 + i % 12))
          .withSizeBytes(100_000_000L + random.nextLong(20_000_000_000L))
          .endImage();
    }
    return builder.build();
  }

  private static Map<String, Quantity> resources(String cpu, String memory) {
    return Map.of(
        "cpu", new Quantity(cpu),
        "memory", new Quantity(memory),
        "ephemeral-storage", new Quantity("3750000000Ki"),
        "hugepages-1Gi", new Quantity("0"),
        "hugepages-2Mi", new Quantity("0"),
        "pods", new Quantity("110"));
  }

  private static byte[] bytes(RandomGenerator random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static String uuid(RandomGenerator random, HexFormat hex) {
    String h = hex.formatHex(bytes(random, 16));
    return h.substring(0, 8)
        + "-"
        + h.substring(8, 12)
        + "-"
        + h.substring(12, 16)
        + "-"
        + h.substring(16, 20)
        + "-"
        + h.substring(20);
  }
}
