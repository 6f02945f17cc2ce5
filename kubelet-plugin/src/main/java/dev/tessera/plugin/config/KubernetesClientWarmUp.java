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
 * like the ones a prepare reads ({@link PrepareWarmUp#sampleClaim}) and asks for a claim that does
 * not exist. Neither can fail the start-up: an API server that is away now is the prepare's
 * problem, not the warm-up's. Then it rehearses a prepare of the decoded claim ({@link
 * PrepareWarmUp}). The plugin offers registration once all of it is done ({@link StartupWarmUp}).
 */
@Context
public class KubernetesClientWarmUp implements StartupWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesClientWarmUp.class);

  private final CompletableFuture<Void> done = new CompletableFuture<>();

  public KubernetesClientWarmUp(KubernetesClient client, PrepareWarmUp prepare) {
    client.getConfiguration();
    Thread.ofPlatform()
        .daemon()
        .name("client-warm-up")
        .start(
            () -> {
              try {
                rehearse(prepare, warmUp(client, prepare.sampleClaim()));
              } finally {
                done.complete(null);
              }
            });
  }

  @Override
  public CompletionStage<Void> done() {
    return done;
  }

  private static void rehearse(PrepareWarmUp prepare, ResourceClaim sample) {
    try {
      prepare.run(sample);
    } catch (RuntimeException e) {
      LOG.atWarn().setCause(e).log("cannot rehearse a prepare at start-up");
    }
  }

  /** The sample claim as decoded, or null when it could not be. */
  private static ResourceClaim warmUp(KubernetesClient client, String sample) {
    long start = System.nanoTime();
    ResourceClaim claim;
    try {
      claim = client.getKubernetesSerialization().unmarshal(sample, ResourceClaim.class);
      client.getKubernetesSerialization().asJson(claim);
    } catch (RuntimeException e) {
      LOG.atWarn().setCause(e).log("cannot decode the sample claim at start-up");
      claim = null;
    }
    try {
      client
          .dynamicResourceAllocation()
          .v1()
          .resourceClaims()
          .inNamespace("default")
          .withName("tessera-warm-up-none")
          .get();
    } catch (RuntimeException e) {
      LOG.atDebug().setCause(e).log("client warm-up did not finish; the first prepare pays for it");
      return claim;
    }
    LOG.atDebug()
        .addKeyValue("ms", (System.nanoTime() - start) / 1_000_000)
        .log("client warmed up");
    return claim;
  }
}
