package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.claimOnNode;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.gpuConfig;
import static dev.tessera.plugin.Fixtures.result;
import static dev.tessera.plugin.it.PluginHarness.DRIVER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.kubelet.dra.v1.Claim;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tessera.plugin.app.KubeletPlugin;
import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The plugin as the kubelet sees it: real Unix sockets, real NVML binding on the simulator (H100
 * x4, GPU 3 in MIG mode with a 3g.40gb device at slice 4), claims read from an API server.
 */
class KubeletContractIT {
  @RegisterExtension
  final SimulatedPlugin node =
      new SimulatedPlugin("H100-SXM5-80GB", 4, "--mig-enabled", "3", "--mig", "3:9@4");

  private final JsonMapper json = JsonMapper.builder().build();

  private Map<String, NodePrepareResourceResponse> prepare(ResourceClaim... claims) {
    return node.plugin().kubelet().prepare(claims);
  }

  private String unprepare(ResourceClaim claim) {
    return node.plugin().kubelet().unprepare(claim);
  }

  private PreparedClaims checkpoint() {
    return new CheckpointStore(node.plugin().checkpointFile(), json).load("boot-1");
  }

  @Test
  void registersAsADraPluginSpeakingV1First() {
    var info = node.plugin().kubelet().getInfo();
    assertThat(info.getType()).isEqualTo("DRAPlugin");
    assertThat(info.getName()).isEqualTo(DRIVER);
    assertThat(info.getEndpoint()).isEqualTo(node.plugin().draSocket().toAbsolutePath().toString());
    assertThat(info.getSupportedVersionsList())
        .containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");

    node.plugin().kubelet().notifyRegistration(true, "");
    var registration =
        node.plugin().context().getBean(KubeletPlugin.class).registration().registered();
    await().atMost(Duration.ofSeconds(5)).until(registration::isDone);
    assertThat(node.plugin().fatalErrors).isEmpty();

    // Registered: the node's inventory goes to its GpuNode and the plugin's Lease is renewed.
    var gpuNodes = node.api().client().genericKubernetesResources(GpuNodeReporter.GPU_NODES);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              var gpuNode = gpuNodes.withName("node-a").get();
              assertThat(gpuNode).isNotNull();
              @SuppressWarnings("unchecked")
              var status = (Map<String, Object>) gpuNode.getAdditionalProperties().get("status");
              assertThat(status)
                  .containsEntry("gpuCount", 4)
                  .containsEntry("product", "NVIDIA H100 80GB HBM3");
              assertThat(json.writeValueAsString(status.get("inventory")))
                  .contains("\"migMode\":\"ENABLED\"");
              // The 4 H100s' MIG profile table once, each GPU naming it (decision 56).
              var inventory = (Map<?, ?>) status.get("inventory");
              assertThat((List<?>) inventory.get("migProfileTables")).hasSize(1);
              assertThat((List<?>) inventory.get("gpus"))
                  .hasSize(4)
                  .allSatisfy(
                      gpu -> {
                        var fields = (Map<?, ?>) gpu;
                        assertThat(fields.get("migProfileTable")).isEqualTo(0);
                        assertThat(fields.get("migProfiles")).isEqualTo(List.of());
                      });
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        node.api()
                            .client()
                            .leases()
                            .inNamespace("kube-node-lease")
                            .withName("tessera-node-a")
                            .get())
                    .isNotNull()
                    .satisfies(
                        l -> assertThat(l.getSpec().getLeaseDurationSeconds()).isEqualTo(40)));
  }

  @Test
  void aRejectedRegistrationIsFatal() {
    node.plugin().kubelet().notifyRegistration(false, "version not supported");
    await().atMost(Duration.ofSeconds(5)).until(() -> !node.plugin().fatalErrors.isEmpty());
    assertThat(node.plugin().fatalErrors).containsExactly("version not supported");
  }

  @Test
  void preparesAndUnpreparesOneGpu() throws Exception {
    var claim =
        node.plugin().create(claim("uid-one", "one", List.of(result("gpu", "gpu-0")), List.of()));

    var response = prepare(claim).get(uid(claim));

    assertThat(response.getError()).isEmpty();
    assertThat(response.getDevicesList())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getPoolName()).isEqualTo("node-a");
              assertThat(d.getDeviceName()).isEqualTo("gpu-0");
              assertThat(d.getRequestNamesList()).containsExactly("gpu");
              assertThat(d.getCdiDeviceIdsList())
                  .containsExactly("k8s.gpu.tessera.dev/claim=" + uid(claim) + "-gpu-0");
              assertThat(d.hasShareId()).isFalse();
            });
    JsonNode spec = json.readTree(Files.readString(node.plugin().specFile(uid(claim))));
    assertThat(spec.get("kind").asString()).isEqualTo("k8s.gpu.tessera.dev/claim");
    assertThat(spec.get("containerEdits").get("env").get(0).asString())
        .isEqualTo("NVIDIA_VISIBLE_DEVICES=void");
    assertThat(spec.get("containerEdits").get("deviceNodes").findValuesAsString("path"))
        .contains("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
    assertThat(spec.get("containerEdits").get("mounts").findValuesAsString("containerPath"))
        .contains("/usr/bin/nvidia-smi")
        .anyMatch(p -> p.startsWith("/usr/lib/x86_64-linux-gnu/libcuda.so."));
    for (String hostPath : spec.findValuesAsString("hostPath")) {
      assertThat(Path.of(hostPath)).exists();
    }
    String uuid = checkpoint().claims().get(uid(claim)).devices().get(0).uuid();
    assertThat(uuid).startsWith("GPU-");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !readClaim(claim).getStatus().getDevices().isEmpty());
    List<AllocatedDeviceStatus> status = readClaim(claim).getStatus().getDevices();
    assertThat(status)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getDriver()).isEqualTo(DRIVER);
              assertThat(s.getDevice()).isEqualTo("gpu-0");
              assertThat(s.getConditions())
                  .singleElement()
                  .satisfies(
                      c -> {
                        assertThat(c.getType()).isEqualTo("Ready");
                        assertThat(c.getStatus()).isEqualTo("True");
                      });
              assertThat(json.writeValueAsString(s.getData())).contains(uuid);
            });

    assertThat(unprepare(claim)).isEmpty();
    assertThat(node.plugin().specFile(uid(claim))).doesNotExist();
    assertThat(checkpoint().claims()).isEmpty();
    var metrics = node.plugin().context().getBean(MeterRegistry.class);
    assertThat(metrics.get("tessera.claims.prepared").gauge().value()).isZero();
    assertThat(metrics.get("tessera.claims.prepare").tag("outcome", "success").timer().count())
        .isEqualTo(1);
    assertThat(metrics.get("tessera.claims.unprepare").tag("outcome", "success").timer().count())
        .isEqualTo(1);
    // Registered at start-up: an error series is there, at 0, before any error.
    assertThat(metrics.get("tessera.claims.prepare").tag("outcome", "error").timer().count())
        .isZero();
    assertThat(metrics.get("tessera.claims.unprepare").tag("outcome", "error").timer().count())
        .isZero();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(readClaim(claim).getStatus().getDevices()).isNullOrEmpty());
  }

  @Test
  void preparesTwoGpusInOneClaim() throws Exception {
    var claim =
        node.plugin()
            .create(
                claim(
                    "uid-two",
                    "two",
                    List.of(result("gpus", "gpu-1"), result("gpus", "gpu-2")),
                    List.of()));

    var response = prepare(claim).get(uid(claim));

    assertThat(response.getError()).isEmpty();
    assertThat(response.getDevicesList())
        .extracting(d -> d.getDeviceName())
        .containsExactly("gpu-1", "gpu-2");
    JsonNode spec = json.readTree(Files.readString(node.plugin().specFile(uid(claim))));
    assertThat(spec.get("devices").findValuesAsString("path"))
        .containsExactly("/dev/nvidia1", "/dev/nvidia2");
    var uuids =
        checkpoint().claims().get(uid(claim)).devices().stream().map(PreparedDevice::uuid).toList();
    assertThat(uuids).doesNotHaveDuplicates().allMatch(u -> u.startsWith("GPU-"));
  }

  @Test
  void preparesAnExistingMigDeviceWithItsCapabilityNodes() throws Exception {
    var claim =
        node.plugin()
            .create(
                claim("uid-mig", "mig", List.of(result("mig", "gpu-3-mig-3g40gb-4")), List.of()));

    var response = prepare(claim).get(uid(claim));

    assertThat(response.getError()).isEmpty();
    JsonNode device =
        json.readTree(Files.readString(node.plugin().specFile(uid(claim)))).get("devices").get(0);
    List<String> paths = device.findValuesAsString("path");
    assertThat(paths.get(0)).isEqualTo("/dev/nvidia3");
    assertThat(paths.subList(1, 3)).allMatch(p -> p.startsWith("/dev/nvidia-caps/nvidia-cap"));
    assertThat(checkpoint().claims().get(uid(claim)).devices().get(0).uuid()).startsWith("MIG-");
    assertThat(unprepare(claim)).isEmpty();
  }

  @Test
  void speaksV1beta1Too() {
    var claim =
        node.plugin().create(claim("uid-beta", "beta", List.of(result("gpu", "gpu-0")), List.of()));
    var request =
        dev.tessera.api.kubelet.dra.v1beta1.NodePrepareResourcesRequest.newBuilder()
            .addClaims(
                dev.tessera.api.kubelet.dra.v1beta1.Claim.newBuilder()
                    .setNamespace("default")
                    .setName("beta")
                    .setUid(claim.getMetadata().getUid()))
            .build();
    var response =
        node.plugin()
            .kubelet()
            .v1beta1()
            .nodePrepareResources(request)
            .getClaimsMap()
            .get(uid(claim));
    assertThat(response.getError()).isEmpty();
    assertThat(response.getDevicesList())
        .extracting(d -> d.getCdiDeviceIdsList().get(0))
        .containsExactly("k8s.gpu.tessera.dev/claim=" + uid(claim) + "-gpu-0");

    var unprepare =
        dev.tessera.api.kubelet.dra.v1beta1.NodeUnprepareResourcesRequest.newBuilder()
            .addClaims(request.getClaims(0))
            .build();
    assertThat(
            node.plugin()
                .kubelet()
                .v1beta1()
                .nodeUnprepareResources(unprepare)
                .getClaimsMap()
                .get(uid(claim))
                .getError())
        .isEmpty();
    assertThat(node.plugin().specFile(uid(claim))).doesNotExist();
  }

  @Test
  void rePrepareReturnsTheSameAnswerAcrossARestart() throws Exception {
    var claim =
        node.plugin()
            .create(claim("uid-again", "again", List.of(result("gpu", "gpu-0")), List.of()));
    var first = prepare(claim).get(uid(claim));
    node.plugin().stop();
    node.api().client().resource(claim).delete(); // even the API server's copy is gone now
    node.plugin().start();

    assertThat(prepare(claim).get(uid(claim))).isEqualTo(first);
    assertThat(unprepare(claim)).isEmpty();
    assertThat(node.plugin().specFile(uid(claim))).doesNotExist();
  }

  @Test
  void aClaimStartedWhenThePluginDiedIsRolledBackAndRedone() throws Exception {
    var claim =
        node.plugin()
            .create(claim("uid-crash", "crash", List.of(result("gpu", "gpu-0")), List.of()));
    node.plugin().stop();
    var held =
        new PreparedDevice(
            List.of("gpu"),
            "node-a",
            "gpu-2",
            List.of("x"),
            "GPU-x",
            SharingStrategy.EXCLUSIVE,
            null);
    new CheckpointStore(node.plugin().checkpointFile(), json)
        .save(
            PreparedClaims.empty("boot-1")
                .with(
                    uid(claim),
                    new ClaimEntry(ClaimState.PrepareStarted, "default", "crash", List.of(held))),
            Durability.DURABLE);
    Files.createDirectories(node.plugin().cdiDir());
    Files.writeString(node.plugin().specFile(uid(claim)), "{\"half\":");
    node.plugin().start();

    var response = prepare(claim).get(uid(claim));

    assertThat(response.getError()).isEmpty();
    assertThat(response.getDevicesList())
        .extracting(d -> d.getDeviceName())
        .containsExactly("gpu-0");
    assertThat(checkpoint().claims().get(uid(claim)).state())
        .isEqualTo(ClaimState.PrepareCompleted);
    assertThat(Files.readString(node.plugin().specFile(uid(claim))))
        .contains(uid(claim) + "-gpu-0");
  }

  @Test
  void eachBadClaimGetsItsOwnClearErrorAndLeavesNothingBehind() throws Exception {
    var good =
        node.plugin().create(claim("uid-good", "good", List.of(result("gpu", "gpu-0")), List.of()));
    var replaced =
        node.plugin()
            .create(claim("uid-new", "replaced", List.of(result("gpu", "gpu-1")), List.of()));
    var elsewhere =
        node.plugin()
            .create(
                claimOnNode(
                    "uid-far", "far", "node-b", List.of(result("gpu", "gpu-1")), List.of()));
    var invalid =
        node.plugin()
            .create(
                claim(
                    "uid-bad",
                    "bad",
                    List.of(result("gpu", "gpu-1")),
                    List.of(config("FromClaim", List.of(), gpuConfig("Sometimes")))));
    var wholeMigGpu =
        node.plugin()
            .create(claim("uid-whole", "whole", List.of(result("gpu", "gpu-3")), List.of()));
    var taken =
        node.plugin()
            .create(claim("uid-taken", "taken", List.of(result("gpu", "gpu-0")), List.of()));
    var unallocated = claim("uid-unalloc", "unalloc", List.of(), List.of());
    unallocated.getStatus().setAllocation(null);
    unallocated = node.plugin().create(unallocated);

    var request =
        NodePrepareResourcesRequest.newBuilder()
            .addClaims(KubeletClient.ref(good))
            .addClaims(
                Claim.newBuilder().setNamespace("default").setName("replaced").setUid("uid-old"))
            .addClaims(KubeletClient.ref(elsewhere))
            .addClaims(KubeletClient.ref(invalid))
            .addClaims(KubeletClient.ref(wholeMigGpu))
            .addClaims(KubeletClient.ref(taken))
            .addClaims(KubeletClient.ref(unallocated))
            .addClaims(
                Claim.newBuilder().setNamespace("default").setName("ghost").setUid("uid-ghost"))
            .build();
    Map<String, NodePrepareResourceResponse> responses =
        node.plugin().kubelet().v1().nodePrepareResources(request).getClaimsMap();

    assertThat(responses).hasSize(8);
    assertThat(responses.get(uid(good)).getError()).isEmpty();
    assertThat(responses.get("uid-old").getError())
        .contains("has UID " + uid(replaced) + ", not uid-old");
    assertThat(responses.get(uid(elsewhere)).getError()).contains("allocated to another node");
    assertThat(responses.get(uid(invalid)).getError())
        .contains("status.allocation.devices.config[0].opaque.parameters.sharing.strategy")
        .contains("allowed: Exclusive, TimeSlicing, MPS");
    assertThat(responses.get(uid(wholeMigGpu)).getError()).contains("is in MIG mode");
    assertThat(responses.get(uid(taken)).getError())
        .contains("already prepared for claim default/good");
    assertThat(responses.get(uid(unallocated)).getError()).contains("is not allocated");
    assertThat(responses.get("uid-ghost").getError()).contains("not found");
    for (String claimUid :
        List.of(
            "uid-old",
            uid(replaced),
            uid(elsewhere),
            uid(invalid),
            uid(wholeMigGpu),
            uid(taken),
            uid(unallocated),
            "uid-ghost")) {
      assertThat(node.plugin().specFile(claimUid)).doesNotExist();
    }
    assertThat(checkpoint().claims().keySet()).containsExactly(uid(good));
  }

  @Test
  void claimsSharingATimeSlicedGpuArePreparedTogether() {
    var sharing = List.of(config("FromClaim", List.of(), gpuConfig("TimeSlicing")));
    var a = node.plugin().create(claim("uid-a", "a", List.of(result("gpu", "gpu-2")), sharing));
    var b = node.plugin().create(claim("uid-b", "b", List.of(result("gpu", "gpu-2")), sharing));
    var responses = prepare(a, b);
    assertThat(responses.get(uid(a)).getError()).isEmpty();
    assertThat(responses.get(uid(b)).getError()).isEmpty();
  }

  @Test
  void unprepareOfAnUnknownClaimSucceeds() {
    var ghost = claim("uid-never", "never", List.of(), List.of());
    assertThat(unprepare(ghost)).isEmpty();
  }

  private static String uid(ResourceClaim claim) {
    return claim.getMetadata().getUid();
  }

  private ResourceClaim readClaim(ResourceClaim claim) {
    return node.api()
        .client()
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("default")
        .withName(claim.getMetadata().getName())
        .get();
  }
}
