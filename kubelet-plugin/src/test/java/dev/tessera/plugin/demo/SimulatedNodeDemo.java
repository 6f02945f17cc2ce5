package dev.tessera.plugin.demo;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.result;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tessera.plugin.it.KubeletClient;
import dev.tessera.plugin.it.MockApiServer;
import dev.tessera.plugin.it.PluginProcess;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The node plugin on a simulated GPU node, driven the way the kubelet drives it: the plugin runs as
 * its own process on the NVML simulator, a fake kubelet registers it and asks it to prepare claims
 * that an API server (fabric8's mock, until the local cluster exists) serves. Prints what happens
 * at each step. Run it with {@code hack/demo}.
 *
 * <p>Arguments: {@code <plugin jar> <plugin JVM options>}.
 */
public final class SimulatedNodeDemo {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private SimulatedNodeDemo() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    String javaOpts = args.length > 1 ? args[1] : "";
    Path dir = Files.createTempDirectory("tessera-demo");
    try (MockApiServer api = new MockApiServer()) {
      step("A simulated GPU node: 4 x H100-SXM5-80GB; GPU 3 in MIG mode with a 3g.40gb device");
      Path root =
          SimulatedNode.layOut(
              dir.resolve("driver-root"),
              "H100-SXM5-80GB",
              4,
              "--mig-enabled",
              "3",
              "--mig",
              "3:9@4");
      printInventory(jar, root, javaOpts);

      try (PluginProcess plugin =
          PluginProcess.start(
              jar,
              dir.resolve("node"),
              dir.resolve("cdi"),
              root,
              api.writeKubeconfig(dir),
              javaOpts,
              "WARN")) {
        plugin.awaitRegistrationSocket();
        try (KubeletClient kubelet =
            new KubeletClient(plugin.registrationSocket(), plugin.draSocket())) {
          var info = kubelet.getInfo();
          kubelet.notifyRegistration(true, "");
          step(
              "The kubelet found the plugin and registered it after %d ms: type=%s driver=%s versions=%s"
                  .formatted(
                      plugin.nanosSinceStart() / 1_000_000,
                      info.getType(),
                      info.getName(),
                      info.getSupportedVersionsList()));

          var claims = new ArrayList<ResourceClaim>();
          claims.add(
              create(api, claim("u1", "one-gpu", List.of(result("gpu", "gpu-0")), List.of())));
          claims.add(
              create(
                  api,
                  claim(
                      "u2",
                      "two-gpus",
                      List.of(result("gpus", "gpu-1"), result("gpus", "gpu-2")),
                      List.of())));
          claims.add(
              create(
                  api,
                  claim(
                      "u3",
                      "mig-3g40gb",
                      List.of(result("mig", "gpu-3-mig-3g40gb-4")),
                      List.of())));
          claims.add(
              create(
                  api,
                  claim(
                      "u4",
                      "bad-config",
                      List.of(result("gpu", "gpu-0")),
                      List.of(
                          config(
                              "FromClaim",
                              List.of(),
                              Map.of(
                                  "apiVersion", "gpu.tessera.dev/v1alpha1",
                                  "kind", "GpuConfig",
                                  "sharing", Map.of("strategy", "TimeSlicing", "replicas", 4)))))));
          claims.add(
              create(api, claim("u5", "gpu-taken", List.of(result("gpu", "gpu-0")), List.of())));

          for (ResourceClaim claim : claims) {
            prepare(kubelet, plugin, claim);
          }
          // Status writes trail prepare by design: wait for the three prepared claims' status.
          await()
              .atMost(Duration.ofSeconds(10))
              .until(
                  () ->
                      claims.stream()
                              .limit(3)
                              .map(c -> api.client().resource(c).get().getStatus().getDevices())
                              .filter(d -> d != null && !d.isEmpty())
                              .count()
                          == 3);
          step("What the claims' status.devices say in the API server");
          for (ResourceClaim claim : claims) {
            var current =
                api.client()
                    .dynamicResourceAllocation()
                    .v1()
                    .resourceClaims()
                    .inNamespace("default")
                    .withName(claim.getMetadata().getName())
                    .get();
            var devices = current.getStatus().getDevices();
            System.out.printf(
                "   %-11s %s%n",
                claim.getMetadata().getName(),
                devices == null || devices.isEmpty()
                    ? "(none)"
                    : devices.stream()
                        .map(
                            d ->
                                d.getDevice()
                                    + " Ready="
                                    + d.getConditions().get(0).getStatus()
                                    + " "
                                    + JSON.writeValueAsString(d.getData()))
                        .toList());
          }

          step("The kubelet unprepares every claim (pods gone)");
          for (ResourceClaim claim : claims) {
            String error = kubelet.unprepare(claim);
            System.out.printf(
                "   %-11s %s%n",
                claim.getMetadata().getName(), error.isEmpty() ? "unprepared" : error);
          }
          try (Stream<Path> left = Files.list(plugin.cdiDir())) {
            System.out.println(
                "   CDI specs left: " + left.map(p -> p.getFileName().toString()).toList());
          }
        }
      }
      step("Done; the plugin stopped and removed its sockets.");
    } finally {
      TestFiles.deleteTree(dir);
    }
  }

  private static void printInventory(Path jar, Path root, String javaOpts)
      throws IOException, InterruptedException {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(javaOpts.split("\\s+")).stream().filter(s -> !s.isBlank()).toList());
    command.addAll(List.of("-jar", jar.toString(), "inventory", "--driver-root", root.toString()));
    Process inventory = new ProcessBuilder(command).start();
    byte[] out = inventory.getInputStream().readAllBytes();
    inventory.waitFor(60, TimeUnit.SECONDS);
    NodeInventory node = JSON.readValue(out, NodeInventory.class);
    step(
        "`tessera-kubelet-plugin inventory` on it: driver %s, CUDA %s"
            .formatted(node.driverVersion(), node.cudaDriverVersion()));
    for (var gpu : node.gpus()) {
      System.out.printf(
          "   gpu-%d %s %s %s cc=%s %dGiB pci=%s numa=%s mig=%s profiles=%d placements=%d devices=%s%n",
          gpu.minor(),
          gpu.uuid(),
          gpu.productName(),
          gpu.architecture(),
          gpu.cudaComputeCapability(),
          gpu.memoryBytes() >> 30,
          gpu.pciBusId(),
          gpu.numaNode(),
          gpu.migMode(),
          gpu.migProfiles().size(),
          gpu.migProfiles().stream().mapToInt(p -> p.placements().size()).sum(),
          gpu.migDevices().stream().map(m -> m.profile() + "@" + m.placement().start()).toList());
    }
  }

  private static void prepare(KubeletClient kubelet, PluginProcess plugin, ResourceClaim claim)
      throws IOException {
    String uid = claim.getMetadata().getUid();
    NodePrepareResourceResponse response = kubelet.prepare(claim).get(uid);
    step("NodePrepareResources " + claim.getMetadata().getName());
    if (!response.getError().isEmpty()) {
      System.out.println("   error: " + response.getError());
      System.out.println("   CDI spec written: " + Files.exists(specFile(plugin, uid)));
      return;
    }
    for (var device : response.getDevicesList()) {
      System.out.printf("   %s -> %s%n", device.getDeviceName(), device.getCdiDeviceIdsList());
    }
    JsonNode spec = JSON.readTree(Files.readString(specFile(plugin, uid)));
    for (JsonNode device : spec.get("devices")) {
      System.out.printf(
          "   CDI device %s: %s%n",
          device.get("name").asString(), device.findValuesAsString("path"));
    }
    System.out.printf(
        "   common edits: %s, %d driver files mounted, env %s (cdiVersion %s)%n",
        spec.get("containerEdits").get("deviceNodes").findValuesAsString("path"),
        spec.get("containerEdits").get("mounts").size(),
        spec.get("containerEdits").get("env"),
        spec.get("cdiVersion").asString());
  }

  private static Path specFile(PluginProcess plugin, String uid) {
    return plugin.cdiDir().resolve("k8s." + PluginProcess.DRIVER + "-claim_" + uid + ".json");
  }

  private static ResourceClaim create(MockApiServer api, ResourceClaim claim) {
    return api.client().resource(claim).create();
  }

  private static void step(String text) {
    System.out.println();
    System.out.println("== " + text);
  }
}
