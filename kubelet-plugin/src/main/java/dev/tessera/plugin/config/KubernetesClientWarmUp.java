package dev.tessera.plugin.config;

import dev.tessera.plugin.app.FatalErrors;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the Kubernetes client on a thread of its own at start-up: it takes a few hundred
 * milliseconds of class loading (600 ms of the main thread's 1.9 s before the registration socket,
 * when Micronaut built it) that the kubelet registration need not wait for. Its first user waits
 * for it ({@link #client()}). A client that cannot be built is fatal: the process exits, as it did
 * when the build failed the start-up.
 *
 * <p>Then, in the background, pays what the first prepare would otherwise pay on the kubelet's
 * clock: fabric8 builds its deserializers for a claim's model classes on first use, and the first
 * request opens the connection to the API server (with its TLS handshake). So it decodes a claim
 * like the ones a prepare reads and asks for a claim that does not exist. Neither can fail the
 * start-up: an API server that is away now is the prepare's problem, not the warm-up's.
 */
public class KubernetesClientWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesClientWarmUp.class);

  /** An allocated, reserved claim with one device's status: what a prepare and its status see. */
  private static final String CLAIM =
      """
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
       "metadata":{"name":"warm-up","namespace":"default","uid":"00000000-0000-0000-0000-000000000000",
        "resourceVersion":"1","generation":1},
       "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.tessera.dev",
        "allocationMode":"ExactCount","count":1}}],
        "config":[{"requests":["gpu"],"opaque":{"driver":"gpu.tessera.dev",
         "parameters":{"apiVersion":"gpu.tessera.dev/v1alpha1","kind":"GpuConfig"}}}]}},
       "status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.tessera.dev",
         "pool":"node","device":"gpu-0"}],
        "config":[{"source":"FromClaim","requests":["gpu"],"opaque":{"driver":"gpu.tessera.dev",
         "parameters":{"apiVersion":"gpu.tessera.dev/v1alpha1","kind":"GpuConfig"}}}]},
        "nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name",
         "operator":"In","values":["node"]}]}]}},
        "reservedFor":[{"resource":"pods","name":"p","uid":"00000000-0000-0000-0000-000000000001"}],
        "devices":[{"driver":"gpu.tessera.dev","pool":"node","device":"gpu-0",
         "conditions":[{"type":"Ready","status":"True","reason":"Prepared","message":"m",
          "lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1}],
         "data":{"uuid":"GPU-0"}}]}}
      """;

  private final CompletableFuture<KubernetesClient> client = new CompletableFuture<>();

  /** Starts building the client with {@code build}. */
  public KubernetesClientWarmUp(Supplier<KubernetesClient> build, FatalErrors fatalErrors) {
    Thread.ofPlatform()
        .daemon()
        .name("client-warm-up")
        .start(
            () -> {
              KubernetesClient built;
              try {
                built = build.get();
              } catch (RuntimeException e) {
                LOG.atError().setCause(e).log("cannot build the Kubernetes client");
                client.completeExceptionally(e);
                fatalErrors.fatal("cannot build the Kubernetes client: " + e.getMessage());
                return;
              }
              client.complete(built);
              warmUp(built);
            });
  }

  /** The client, once built; throws what the build threw. */
  public KubernetesClient client() {
    return client.join();
  }

  private static void warmUp(KubernetesClient client) {
    long start = System.nanoTime();
    try {
      ResourceClaim claim =
          client.getKubernetesSerialization().unmarshal(CLAIM, ResourceClaim.class);
      client.getKubernetesSerialization().asJson(claim);
      client
          .dynamicResourceAllocation()
          .v1()
          .resourceClaims()
          .inNamespace("default")
          .withName("tessera-warm-up-none")
          .get();
    } catch (RuntimeException e) {
      LOG.atDebug().setCause(e).log("client warm-up did not finish; the first prepare pays for it");
      return;
    }
    LOG.atDebug()
        .addKeyValue("ms", (System.nanoTime() - start) / 1_000_000)
        .log("client warmed up");
  }
}
