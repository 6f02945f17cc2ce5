package dev.tessera.plugin.config;

import dev.tessera.plugin.app.StartupWarmUp;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micronaut.context.annotation.Context;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the Kubernetes client at start-up, on the main thread, as the context's other beans are: a
 * client that cannot be built fails the start-up. (It was marked {@code @Parallel} to build it on a
 * thread of its own, but Micronaut built it on the main thread all the same: 600 ms of that
 * thread's 1.9 s before the registration socket, JIT. Building it on a thread of its own was
 * measured and did not shorten the start on two cores, where the start is CPU-bound: decision 39.)
 *
 * <p>Then, in the background, pays what the first prepare would otherwise pay on the kubelet's
 * clock: fabric8 builds its deserializers for a claim's model classes on first use, and the first
 * request opens the connection to the API server (with its TLS handshake). So it decodes a claim
 * like the ones a prepare reads and asks for a claim that does not exist. Neither can fail the
 * start-up: an API server that is away now is the prepare's problem, not the warm-up's. Then it
 * renders a prepare's CDI spec and reply ({@link PrepareWarmUp}). The plugin offers registration
 * once all of it is done ({@link StartupWarmUp}).
 */
@Context
public class KubernetesClientWarmUp implements StartupWarmUp {
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

  private final CompletableFuture<Void> done = new CompletableFuture<>();

  public KubernetesClientWarmUp(KubernetesClient client, PrepareWarmUp prepare) {
    client.getConfiguration();
    Thread.ofPlatform()
        .daemon()
        .name("client-warm-up")
        .start(
            () -> {
              try {
                warmUp(client);
                render(prepare);
              } finally {
                done.complete(null);
              }
            });
  }

  @Override
  public CompletionStage<Void> done() {
    return done;
  }

  private static void render(PrepareWarmUp prepare) {
    try {
      prepare.run();
    } catch (RuntimeException e) {
      LOG.atWarn().setCause(e).log("cannot render a prepare's spec and reply at start-up");
    }
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
