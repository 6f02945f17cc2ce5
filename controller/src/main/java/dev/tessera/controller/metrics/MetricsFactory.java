package dev.tessera.controller.metrics;

import dev.tessera.controller.config.ControllerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** The controller's meter registry, and the server that exposes it (off with port -1). */
@Factory
public class MetricsFactory {

  @Singleton
  PrometheusMeterRegistry prometheusRegistry() {
    var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    return registry;
  }

  @Singleton
  MeterRegistry meterRegistry(PrometheusMeterRegistry registry) {
    return registry;
  }

  @Context
  @Bean(preDestroy = "close")
  MetricsServer metricsServer(ControllerConfig config, PrometheusMeterRegistry registry) {
    return config.metricsPort() < 0
        ? MetricsServer.disabled()
        : MetricsServer.start(config.metricsPort(), registry);
  }
}
