package dev.tessera.controller.config;

import dev.tessera.api.health.TaintEffect;
import dev.tessera.controller.publish.ElectionSettings;
import dev.tessera.controller.publish.PoolReconciler;
import dev.tessera.controller.publish.PoolSlices;
import dev.tessera.controller.publish.PublishSettings;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import tools.jackson.databind.json.JsonMapper;

/** Builds the controller's long-lived objects from its configuration. */
@Factory
public class ControllerFactory {
  /** The field manager of everything the controller writes. */
  public static final String FIELD_MANAGER = "tessera-controller";

  /** Retries of a failed API request (waits of 100, 200, 400 ms: under a second in all). */
  private static final int REQUEST_RETRIES = 3;

  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }

  @Singleton
  JsonMapper jsonMapper() {
    return JsonMapper.builder().build();
  }

  @Singleton
  @Bean(preDestroy = "close")
  KubernetesClient kubernetesClient(ControllerConfig config) {
    Config client;
    if (config.kubeconfig() == null || config.kubeconfig().isBlank()) {
      client = Config.autoConfigure(null);
    } else {
      try {
        client = Config.fromKubeconfig(Files.readString(Path.of(config.kubeconfig())));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read kubeconfig " + config.kubeconfig(), e);
      }
    }
    // The API server names a write's field manager after the user agent: every object the
    // controller writes is then managed by "tessera-controller", not by a client library's name.
    client.setUserAgent(FIELD_MANAGER);
    // fabric8 retries a failed request 10 times with doubling waits (~100 s) by default. During an
    // API server outage one renewal of the election Lease would then outlast the renew deadline and
    // the leader would give up its lead for a 30 s outage; a slice write would hold its worker as
    // long. Every caller here retries on its own schedule (the elector every retry period, the
    // node queue with its backoff, the informers' watches), so a request fails within a second.
    client.setRequestRetryBackoffLimit(REQUEST_RETRIES);
    return new KubernetesClientBuilder().withConfig(client).build();
  }

  @Singleton
  PublishSettings publishSettings(ControllerConfig config) {
    return new PublishSettings(
        config.driverName(),
        config.defaultOffering(),
        config.leaseNamespace(),
        config.leaseGrace(),
        config.resync(),
        config.retryInitial(),
        config.retryMax(),
        config.workers());
  }

  @Singleton
  ElectionSettings electionSettings(ControllerConfig config) {
    return new ElectionSettings(
        config.electionNamespace(), config.electionLeaseDuration(), config.electionIdentity());
  }

  @Singleton
  SliceRenderer sliceRenderer(ControllerConfig config) {
    return new SliceRenderer(
        TaintEffect.fromApiValue(config.unhealthyTaintEffect())
            .filter(e -> e != TaintEffect.NONE)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "tessera.controller.unhealthy-taint-effect must be NoSchedule or"
                            + " NoExecute, not \""
                            + config.unhealthyTaintEffect()
                            + "\"")));
  }

  @Singleton
  PoolReconciler poolReconciler(ControllerConfig config) {
    return new PoolReconciler(new PoolSlices(config.driverName()));
  }
}
