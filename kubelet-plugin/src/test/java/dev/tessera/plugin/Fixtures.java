package dev.tessera.plugin;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.api.inventory.MigProfile;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** Plain values for unit tests: a node with GPUs, claims allocated on it. */
public final class Fixtures {
  public static final String DRIVER = "gpu.tessera.dev";
  public static final String NODE = "node-a";

  private Fixtures() {}

  /** {@code count} H100s; GPU 1 (if present) is in MIG mode with a 1g.10gb device at slice 0. */
  public static NodeInventory inventory(int count) {
    List<Gpu> gpus =
        IntStream.range(0, count)
            .mapToObj(
                i ->
                    new Gpu(
                        i,
                        i,
                        "GPU-0000000" + i,
                        "NVIDIA H100 80GB HBM3",
                        "Nvidia",
                        "Hopper",
                        "9.0",
                        80L << 30,
                        "00000000:1" + i + ":00.0",
                        null,
                        0,
                        i == 1 ? MigMode.ENABLED : MigMode.DISABLED,
                        i == 1
                            ? List.of(
                                new MigDevice(
                                    "MIG-0000001",
                                    3,
                                    0,
                                    19,
                                    "1g.10gb",
                                    new MigPlacement(0, 1),
                                    10L << 30))
                            : List.of(),
                        List.of()))
            .toList();
    return new NodeInventory("580.95.05", "13.0", "13.580.95.05", gpus);
  }

  /** The inventory with GPU 0 able to make 1g.10gb devices (dynamic MIG) at slices 0–6. */
  public static NodeInventory withOneGPlacements(NodeInventory inventory) {
    Gpu g = inventory.gpus().get(0);
    var profile =
        new MigProfile(
            19,
            "1g.10gb",
            1,
            7,
            10L << 30,
            16,
            1,
            1,
            0,
            0,
            0,
            IntStream.range(0, 7).mapToObj(s -> new MigPlacement(s, 1)).toList());
    var dynamic = g.withMigProfiles(List.of(profile));
    var gpus = new ArrayList<>(inventory.gpus());
    gpus.set(0, dynamic);
    return new NodeInventory(
        inventory.driverVersion(), inventory.cudaDriverVersion(), inventory.nvmlVersion(), gpus);
  }

  public static DeviceRequestAllocationResult result(String request, String device) {
    return new DeviceRequestAllocationResultBuilder()
        .withRequest(request)
        .withDriver(DRIVER)
        .withPool(NODE)
        .withDevice(device)
        .build();
  }

  public static DeviceAllocationConfiguration config(
      String source, List<String> requests, Map<String, Object> parameters) {
    return new DeviceAllocationConfigurationBuilder()
        .withSource(source)
        .withRequests(requests)
        .withNewOpaque()
        .withDriver(DRIVER)
        .withParameters(parameters)
        .endOpaque()
        .build();
  }

  public static Map<String, Object> gpuConfig(String strategy) {
    return Map.of(
        "apiVersion",
        "gpu.tessera.dev/v1alpha1",
        "kind",
        "GpuConfig",
        "sharing",
        Map.of("strategy", strategy));
  }

  /** A GpuConfig that time-slices with {@code interval}. */
  public static Map<String, Object> timeSlicing(String interval) {
    return Map.of(
        "apiVersion",
        "gpu.tessera.dev/v1alpha1",
        "kind",
        "GpuConfig",
        "sharing",
        Map.of("strategy", "TimeSlicing", "timeSlicingConfig", Map.of("interval", interval)));
  }

  /** A GpuConfig (or MigDeviceConfig) that shares through MPS with these limits. */
  public static Map<String, Object> mps(String kind, int threadPercentage, String pinnedMemory) {
    return Map.of(
        "apiVersion",
        "gpu.tessera.dev/v1alpha1",
        "kind",
        kind,
        "sharing",
        Map.of(
            "strategy",
            "MPS",
            "mpsConfig",
            Map.of(
                "defaultActiveThreadPercentage",
                threadPercentage,
                "defaultPinnedDeviceMemoryLimit",
                pinnedMemory)));
  }

  public static ResourceClaim claim(
      String uid,
      String name,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> configs) {
    return claimOnNode(uid, name, NODE, results, configs);
  }

  public static ResourceClaim claimOnNode(
      String uid,
      String name,
      String node,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> configs) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .endDevices()
        .endSpec()
        .withStatus(allocatedOn(node, results, configs))
        .build();
  }

  /** A claim's status once the scheduler allocated it on {@code node}. */
  public static ResourceClaimStatus allocatedOn(
      String node,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> configs) {
    return new ResourceClaimStatusBuilder()
        .withNewAllocation()
        .withNewDevices()
        .withResults(results)
        .withConfig(configs)
        .endDevices()
        .withNodeSelector(
            new NodeSelectorBuilder()
                .addNewNodeSelectorTerm()
                .addNewMatchField()
                .withKey("metadata.name")
                .withOperator("In")
                .withValues(node)
                .endMatchField()
                .endNodeSelectorTerm()
                .build())
        .endAllocation()
        .build();
  }
}
