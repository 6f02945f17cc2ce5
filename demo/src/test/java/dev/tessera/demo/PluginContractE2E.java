package dev.tessera.demo;

import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.gpuConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.DriverNames;
import dev.tessera.api.kubelet.dra.v1.Claim;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tessera.plugin.Fixtures;
import dev.tessera.plugin.it.KubeletClient;
import dev.tessera.plugin.it.PluginProcess;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The node plugin's contract with the kubelet against the cluster's real API server: the plugin
 * runs as its own process on a simulated node (H100 x4) with private kubelet dirs (the cluster's
 * kubelet never sees it), dialled by a fake kubelet over its Unix sockets. Claims are created in a
 * namespace of our own and allocated through the status subresource as the scheduler does, so UIDs,
 * validation and the status the plugin writes are the API server's.
 */
class PluginContractE2E {
  /** The plugin's node, and so its pool: made up, so nothing of the cluster's node is touched. */
  private static final String NODE = "tessera-contract-node";

  private static final String DRIVER = DriverNames.DEFAULT_DRIVER;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static Path work;
  private static KubernetesClient client;
  private static String namespace;
  private static PluginProcess plugin;
  private static KubeletClient kubelet;

  @BeforeAll
  static void start() throws Exception {
    Cluster cluster = Clusters.requireApiServer();
    work = Files.createTempDirectory("tessera-contract");
    Path root = SimulatedNode.layOut(work.resolve("driver-root"), "H100-SXM5-80GB", 4);
    client = cluster.adminClient();
    namespace =
        client
            .namespaces()
            .resource(
                new NamespaceBuilder()
                    .withNewMetadata()
                    .withGenerateName("tessera-contract-")
                    .endMetadata()
                    .build())
            .create()
            .getMetadata()
            .getName();
    var env = new LinkedHashMap<String, String>();
    env.put("NODE_NAME", NODE);
    env.put("TESSERA_REGISTRY_DIR", work.resolve("registry").toString());
    env.put("TESSERA_PLUGINS_DIR", work.resolve("plugins").toString());
    env.put("TESSERA_CDI_DIR", work.resolve("cdi").toString());
    env.put("TESSERA_DRIVER_ROOT", root.toString());
    env.put("TESSERA_KUBECONFIG", cluster.adminKubeconfig().toString());
    env.put("TESSERA_METRICS_PORT", "-1");
    plugin = TesseraProcesses.startPlugin(work, env);
    plugin.awaitRegistrationSocket();
    // Registration is never confirmed: the plugin neither reports a GpuNode nor holds a Lease.
    kubelet = new KubeletClient(plugin.registrationSocket(), plugin.draSocket());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (kubelet != null) {
        kubelet.close();
      }
      if (plugin != null) {
        plugin.close();
      }
      if (namespace != null) {
        client.namespaces().withName(namespace).delete();
      }
    } finally {
      if (client != null) {
        client.close();
      }
      if (work != null) {
        TestFiles.deleteTree(work);
      }
    }
  }

  @Test
  void preparesAnAllocatedClaimReportsItsDeviceAndUnpreparesIt() throws Exception {
    var claim = allocated("one", NODE, List.of(result("gpu", NODE, "gpu-0")), List.of());
    String uid = uid(claim);

    NodePrepareResourceResponse response = kubelet.prepare(claim).get(uid);

    assertThat(response.getError()).isEmpty();
    assertThat(response.getDevicesList())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getPoolName()).isEqualTo(NODE);
              assertThat(d.getDeviceName()).isEqualTo("gpu-0");
              assertThat(d.getRequestNamesList()).containsExactly("gpu");
              assertThat(d.getCdiDeviceIdsList())
                  .containsExactly("k8s." + DRIVER + "/claim=" + uid + "-gpu-0");
            });
    assertThat(specFile(uid)).exists();
    String uuid = checkpoint().get(uid).get("devices").get(0).get("uuid").asString();
    assertThat(uuid).startsWith("GPU-");

    // The plugin's status.devices entry, as the API server accepted and stored it.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(devicesOf(claim))
                    .singleElement()
                    .satisfies(
                        s -> {
                          assertThat(s.getDriver()).isEqualTo(DRIVER);
                          assertThat(s.getPool()).isEqualTo(NODE);
                          assertThat(s.getDevice()).isEqualTo("gpu-0");
                          assertThat(s.getConditions())
                              .singleElement()
                              .satisfies(
                                  c -> {
                                    assertThat(c.getType()).isEqualTo("Ready");
                                    assertThat(c.getStatus()).isEqualTo("True");
                                    assertThat(c.getReason()).isEqualTo("Prepared");
                                    assertThat(c.getObservedGeneration())
                                        .isEqualTo(read(claim).getMetadata().getGeneration());
                                  });
                          assertThat(JSON.writeValueAsString(s.getData()))
                              .isEqualTo("{\"uuid\":\"" + uuid + "\"}");
                        }));

    // The kubelet asks again (after a restart of its own, say): the same answer.
    assertThat(kubelet.prepare(claim).get(uid)).isEqualTo(response);

    assertThat(kubelet.unprepare(claim)).isEmpty();
    assertThat(specFile(uid)).doesNotExist();
    assertThat(checkpoint().propertyNames()).doesNotContain(uid);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(devicesOf(claim)).isEmpty());
    assertThat(Files.readString(plugin.log()))
        .doesNotContain("cannot write the claim's device status");
  }

  @Test
  void eachClaimItCannotPrepareGetsItsOwnErrorAndLeavesNothingBehind() throws Exception {
    var good = allocated("good", NODE, List.of(result("gpu", NODE, "gpu-1")), List.of());
    var deleted = allocated("replaced", NODE, List.of(result("gpu", NODE, "gpu-2")), List.of());
    claims().resource(deleted).delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> claims().withName("replaced").get() == null);
    var replaced = allocated("replaced", NODE, List.of(result("gpu", NODE, "gpu-2")), List.of());
    var elsewhere =
        allocated(
            "far", "another-node", List.of(result("gpu", "another-node", "gpu-1")), List.of());
    var invalid =
        allocated(
            "bad",
            NODE,
            List.of(result("gpu", NODE, "gpu-3")),
            List.of(config("FromClaim", List.of(), gpuConfig("Sometimes"))));
    var unallocated = create("unallocated");
    var ghost =
        Claim.newBuilder()
            .setNamespace(namespace)
            .setName("ghost")
            .setUid(UUID.randomUUID().toString())
            .build();

    var request =
        NodePrepareResourcesRequest.newBuilder()
            .addClaims(KubeletClient.ref(good))
            .addClaims(KubeletClient.ref(deleted))
            .addClaims(KubeletClient.ref(elsewhere))
            .addClaims(KubeletClient.ref(invalid))
            .addClaims(KubeletClient.ref(unallocated))
            .addClaims(ghost)
            .build();
    Map<String, NodePrepareResourceResponse> responses =
        kubelet.v1().nodePrepareResources(request).getClaimsMap();

    assertThat(responses).hasSize(6);
    assertThat(responses.get(uid(good)).getError()).isEmpty();
    assertThat(uid(replaced)).isNotEqualTo(uid(deleted));
    assertThat(responses.get(uid(deleted)).getError())
        .contains("has UID " + uid(replaced) + ", not " + uid(deleted));
    assertThat(responses.get(uid(elsewhere)).getError()).contains("allocated to another node");
    assertThat(responses.get(uid(invalid)).getError())
        .contains("status.allocation.devices.config[0].opaque.parameters.sharing.strategy")
        .contains("allowed: Exclusive, TimeSlicing, MPS");
    assertThat(responses.get(uid(unallocated)).getError()).contains("is not allocated");
    assertThat(responses.get(ghost.getUid()).getError()).contains("not found");
    var refused =
        List.of(
            uid(deleted),
            uid(replaced),
            uid(elsewhere),
            uid(invalid),
            uid(unallocated),
            ghost.getUid());
    for (String claimUid : refused) {
      assertThat(specFile(claimUid)).doesNotExist();
    }
    assertThat(checkpoint().propertyNames())
        .contains(uid(good))
        .doesNotContainAnyElementsOf(refused);

    // The good claim's status is written; then it goes as it came.
    await().atMost(Duration.ofSeconds(10)).until(() -> !devicesOf(good).isEmpty());
    assertThat(kubelet.unprepare(good)).isEmpty();
    assertThat(specFile(uid(good))).doesNotExist();
    for (ResourceClaim claim : List.of(replaced, elsewhere, invalid, unallocated)) {
      assertThat(devicesOf(claim)).isEmpty();
    }
  }

  /** A claim asking for one GPU of Tessera's class (request {@code gpu}), not allocated. */
  private static ResourceClaim create(String name) {
    return claims()
        .resource(
            new ResourceClaimBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .withRequests(
                    new DeviceRequestBuilder()
                        .withName("gpu")
                        .withNewExactly()
                        .withDeviceClassName(DRIVER)
                        .endExactly()
                        .build())
                .endDevices()
                .endSpec()
                .build())
        .create();
  }

  /**
   * As {@link #create}, then allocated on {@code node} through the status, as the scheduler does.
   */
  private static ResourceClaim allocated(
      String name,
      String node,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> configs) {
    ResourceClaim claim = create(name);
    claim.setStatus(Fixtures.allocatedOn(node, results, configs));
    return claims().resource(claim).updateStatus();
  }

  private static DeviceRequestAllocationResult result(String request, String pool, String device) {
    return new DeviceRequestAllocationResultBuilder()
        .withRequest(request)
        .withDriver(DRIVER)
        .withPool(pool)
        .withDevice(device)
        .build();
  }

  private static NonNamespaceOperation<ResourceClaim, ResourceClaimList, Resource<ResourceClaim>>
      claims() {
    return client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(namespace);
  }

  private static ResourceClaim read(ResourceClaim claim) {
    return claims().withName(claim.getMetadata().getName()).get();
  }

  /** The claim's {@code status.devices} as the API server holds them now. */
  private static List<AllocatedDeviceStatus> devicesOf(ResourceClaim claim) {
    var status = read(claim).getStatus();
    return status == null || status.getDevices() == null ? List.of() : status.getDevices();
  }

  private static String uid(ResourceClaim claim) {
    return claim.getMetadata().getUid();
  }

  private static Path specFile(String claimUid) {
    return plugin.cdiDir().resolve("k8s." + DRIVER + "-claim_" + claimUid + ".json");
  }

  /** The checkpoint's claims by UID. */
  private static JsonNode checkpoint() throws IOException {
    return JSON.readTree(Files.readString(plugin.checkpointFile())).get("claims");
  }
}
