package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code kubectl tessera} on the real cluster, installed by hack/install-kubectl-tessera: what
 * {@code why} says of a pending claim — scenario 6's (a selector no GPU meets), a mistyped
 * attribute (beside the webhook's warning naming the nearest name), a share larger than a shared
 * GPU, a MIG profile whose placements' counters a claim of the whole GPU has taken on mig-dynamic —
 * and what {@code nodes} shows of a held device.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class KubectlTesseraE2E {
  private static final String NAMESPACE = "default";

  /** A claim of one device of the class, with these selectors and capacity requests. */
  static ResourceClaim claim(
      String name, String deviceClass, Map<String, String> capacity, String... selectors) {
    var exactly = new DeviceRequestBuilder().withName("gpu").withNewExactly();
    exactly.withDeviceClassName(deviceClass);
    for (String selector : selectors) {
      exactly.addNewSelector().withNewCel(selector).endSelector();
    }
    if (!capacity.isEmpty()) {
      var requests = new java.util.LinkedHashMap<String, Quantity>();
      capacity.forEach((k, v) -> requests.put(k, new Quantity(v)));
      exactly.withNewCapacity().withRequests(requests).endCapacity();
    }
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .withRequests(exactly.endExactly().build())
        .endDevices()
        .endSpec()
        .build();
  }

  /** A pod that holds the claim and sleeps. */
  static Pod holder(String name, String claim) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withTerminationGracePeriodSeconds(1L)
        .addNewResourceClaim()
        .withName("gpu")
        .withResourceClaimName(claim)
        .endResourceClaim()
        .addNewContainer()
        .withName("ctr")
        .withImage("localhost/tessera/busybox:1.35.0")
        .withImagePullPolicy("Never")
        .withCommand("sh", "-c", "exec sleep 3600")
        .withNewResources()
        .addNewClaim()
        .withName("gpu")
        .endClaim()
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  static void awaitAllocated(KubernetesClient client, String claim) {
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              ResourceClaim c =
                  client
                      .resources(ResourceClaim.class)
                      .inNamespace(NAMESPACE)
                      .withName(claim)
                      .get();
              return c != null && c.getStatus() != null && c.getStatus().getAllocation() != null;
            });
  }

  static void delete(KubernetesClient client, List<String> pods, List<String> claims) {
    for (String pod : pods) {
      client.pods().inNamespace(NAMESPACE).withName(pod).withGracePeriod(0).delete();
    }
    for (String claim : claims) {
      client.resources(ResourceClaim.class).inNamespace(NAMESPACE).withName(claim).delete();
    }
  }

  /** Whole GPUs (exclusive) with the admission webhook: scenario 6, a typo, a held GPU. */
  @Nested
  class OnExclusiveGpus {
    private static final String TYPO_WARNING =
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: gpu.tessera.dev publishes"
            + " no attribute \"prodcutName\"; did you mean \"productName\"?";
    private static TesseraWithWebhook withWebhook;
    private static TesseraOnNode tessera;
    private static KubectlTessera kubectl;
    private static KubernetesClient client;
    private static final List<String> warnings = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
      withWebhook = TesseraWithWebhook.start(Clusters.require());
      tessera = withWebhook.tessera();
      kubectl = KubectlTessera.install(Clusters.require());
      client =
          new KubernetesClientBuilder()
              .withConfig(tessera.client().getConfiguration())
              .withHttpClientBuilderConsumer(
                  http -> http.addOrReplaceInterceptor("warnings", new WarningHeaders()))
              .build();
    }

    private static final class WarningHeaders implements Interceptor {
      @Override
      public void after(
          HttpRequest request,
          HttpResponse<?> response,
          AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        for (String header : response.headers("Warning")) {
          warnings.add(SelectorLintE2E.text(header));
        }
      }
    }

    @AfterAll
    static void stop() throws Exception {
      try {
        if (client != null) {
          client.close();
        }
        if (withWebhook != null) {
          withWebhook.close();
        }
      } finally {
        if (kubectl != null) {
          kubectl.close();
        }
      }
    }

    @AfterEach
    void cleanUp() throws Exception {
      // The held pod first: the wait below is for every claim of the node to be unprepared.
      delete(client, List.of("held-pod"), List.of("typo", "held"));
      tessera.deleteScenarioAndWaitForUnprepare("06-unsatisfiable");
    }

    @Test
    // Scenario 6 is shown by ScenariosE2E (one test per scenario): this one reads it again.
    void whySaysNoGpuHasTheMemoryScenarioSixAsks() throws Exception {
      tessera.applyScenario("06-unsatisfiable");
      String claim =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> {
                    Pod pod = client.pods().inNamespace(NAMESPACE).withName("too-big-pod").get();
                    var statuses = pod == null ? null : pod.getStatus().getResourceClaimStatuses();
                    return statuses == null || statuses.isEmpty()
                        ? null
                        : statuses.getFirst().getResourceClaimName();
                  },
                  name -> name != null);

      String why = kubectl.run("why", claim, "-n", NAMESPACE);

      assertThat(why)
          .contains("claim default/" + claim + " is not allocated.")
          .contains("node " + tessera.nodeName() + ":")
          .contains("request gpu (class gpu.tessera.dev, 1 device(s)): 0 fit")
          .containsPattern(
              "selector #1 is false \\(memory=\\d+(\\.\\d)?Gi\\): .*200Gi.* on gpu-0, gpu-1")
          .contains("no node can serve every request now.");
    }

    @Test
    void whySaysAMistypedAttributeCannotBeEvaluatedAndNamesTheNearest() throws Exception {
      ResourceClaim typo =
          claim(
              "typo",
              "gpu.tessera.dev",
              Map.of(),
              "device.attributes[\"gpu.tessera.dev\"].prodcutName == \"NVIDIA H100\"");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                warnings.clear();
                client.resource(typo).dryRun().create();
                return warnings.contains(TYPO_WARNING);
              });
      warnings.clear();
      client.resource(typo).create();
      assertThat(warnings).containsExactly(TYPO_WARNING);

      String why = kubectl.run("why", "typo");

      assertThat(why)
          .contains("cannot decide: selector #1 fails to evaluate")
          .contains("did you mean \"productName\"?")
          .contains("on gpu-0, gpu-1");
    }

    @Test
    void nodesShowsAHeldGpuWithItsClaimAndPod() throws Exception {
      client.resource(claim("held", "gpu.tessera.dev", Map.of())).create();
      client.resource(holder("held-pod", "held")).create();
      awaitAllocated(client, "held");
      String device =
          client
              .resources(ResourceClaim.class)
              .inNamespace(NAMESPACE)
              .withName("held")
              .get()
              .getStatus()
              .getAllocation()
              .getDevices()
              .getResults()
              .getFirst()
              .getDevice();

      String nodes = kubectl.run("nodes");
      String why = kubectl.run("why", "held");

      assertThat(nodes.lines().findFirst().orElseThrow())
          .startsWith("NODE")
          .contains("DEVICE", "TYPE", "PROFILE", "MEMORY", "HEALTH", "TAINTS", "CLAIMS", "PODS");
      assertThat(nodes.lines().filter(l -> l.contains(" " + device + " ")))
          .singleElement()
          .asString()
          .startsWith(tessera.nodeName())
          .contains(" gpu ", "NVIDIA H100", " ok ", "default/held", "held-pod");
      assertThat(why)
          .contains("claim default/held is allocated:")
          .contains("gpu: " + tessera.nodeName() + "/" + device)
          .contains("reserved for pods: held-pod");
    }
  }

  /** One H100 offered in memory shares: a share larger than the GPU. */
  @Nested
  class OnASharedGpu {
    private static TesseraOnNode tessera;
    private static KubectlTessera kubectl;

    @BeforeAll
    static void start() throws Exception {
      tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 1, Offering.SHARED);
      kubectl = KubectlTessera.install(Clusters.require());
    }

    @AfterAll
    static void stop() throws Exception {
      try {
        if (tessera != null) {
          tessera.close();
        }
      } finally {
        if (kubectl != null) {
          kubectl.close();
        }
      }
    }

    @AfterEach
    void cleanUp() {
      delete(tessera.client(), List.of("share-pod"), List.of("share", "too-much"));
    }

    @Test
    void whySaysHowMuchMemoryIsLeftAndNodesWhatIsConsumed() throws Exception {
      var client = tessera.client();
      client.resource(claim("share", "shared.tessera.dev", Map.of("memory", "16Gi"))).create();
      client.resource(holder("share-pod", "share")).create();
      awaitAllocated(client, "share");
      client.resource(claim("too-much", "shared.tessera.dev", Map.of("memory", "100Gi"))).create();

      String why = kubectl.run("why", "too-much");
      String nodes = kubectl.run("nodes");

      assertThat(why)
          .containsPattern(
              "capacity memory: asks 100Gi, \\d+Gi left \\(consumed by default/share\\) on gpu-0")
          .contains("no node can serve every request now.");
      assertThat(nodes.lines().filter(l -> l.contains(" gpu-0 ")))
          .singleElement()
          .asString()
          .contains(" shared ")
          .containsPattern(" 16Gi/\\d+Gi ")
          .contains("default/share", "share-pod");
    }
  }

  /** One H100 on mig-dynamic: the whole GPU held exhausts every placement's counters. */
  @Nested
  class OnAMigDynamicGpu {
    private static TesseraOnNode tessera;
    private static KubectlTessera kubectl;

    @BeforeAll
    static void start() throws Exception {
      tessera = TesseraOnNode.start(Clusters.require(), "H100-SXM5-80GB", 1, Offering.MIG_DYNAMIC);
      kubectl = KubectlTessera.install(Clusters.require());
    }

    @AfterAll
    static void stop() throws Exception {
      try {
        if (tessera != null) {
          tessera.close();
        }
      } finally {
        if (kubectl != null) {
          kubectl.close();
        }
      }
    }

    @AfterEach
    void cleanUp() {
      delete(tessera.client(), List.of("whole-pod"), List.of("whole", "slice"));
    }

    @Test
    void whySaysEveryPlacementsCountersAreTakenByTheWholeGpu() throws Exception {
      var client = tessera.client();
      client.resource(claim("whole", "gpu.tessera.dev", Map.of())).create();
      client.resource(holder("whole-pod", "whole")).create();
      awaitAllocated(client, "whole");
      client
          .resource(
              claim(
                  "slice",
                  "mig.tessera.dev",
                  Map.of(),
                  "device.attributes[\"gpu.tessera.dev\"].profile == \"1g.10gb\""))
          .create();

      String why = kubectl.run("why", "slice");
      String nodes = kubectl.run("nodes");

      // Each 1g.10gb placement needs counters the whole GPU already consumes.
      assertThat(why)
          .contains("request gpu (class mig.tessera.dev, 1 device(s)): 0 fit")
          .containsPattern(
              // The first counter found exhausted is named (copy engines, a memory slice, ...).
              "counter \\S+ of gpu-0-counters exhausted: needs \\d+, 0 left \\(held by"
                  + " default/whole\\) on gpu-0-mig-1g10gb-")
          .doesNotContain("fits")
          .contains("no node can serve every request now.");
      assertThat(nodes.lines().filter(l -> l.contains(" gpu-0 ")))
          .singleElement()
          .asString()
          .contains(" gpu ", "default/whole", "whole-pod");
      // Placements no claim holds are possibilities, not devices: only with --all.
      assertThat(nodes).doesNotContain("gpu-0-mig-");
      assertThat(kubectl.run("nodes", "--all")).contains("gpu-0-mig-1g10gb-");
    }
  }
}
