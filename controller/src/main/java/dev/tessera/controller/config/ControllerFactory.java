package dev.tessera.controller.config;

import dev.tessera.controller.publish.PoolReconciler;
import dev.tessera.controller.publish.PoolSlices;
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
    if (config.kubeconfig() == null || config.kubeconfig().isBlank()) {
      return new KubernetesClientBuilder().withConfig(Config.autoConfigure(null)).build();
    }
    try {
      return new KubernetesClientBuilder()
          .withConfig(Config.fromKubeconfig(Files.readString(Path.of(config.kubeconfig()))))
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + config.kubeconfig(), e);
    }
  }

  @Singleton
  SliceRenderer sliceRenderer() {
    return new SliceRenderer();
  }

  @Singleton
  PoolReconciler poolReconciler(ControllerConfig config) {
    return new PoolReconciler(new PoolSlices(config.driverName()));
  }
}
