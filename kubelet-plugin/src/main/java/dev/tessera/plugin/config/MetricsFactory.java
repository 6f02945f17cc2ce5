package dev.tessera.plugin.config;

import dev.tessera.plugin.app.MetricsServing;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/**
 * The plugin's one meter registry (every {@code MeterRegistry} the beans take is this one) and the
 * HTTP server that exposes it. Built here, not by micronaut-micrometer: its binders, filters and
 * endpoint need Micronaut's HTTP server, which the plugin no longer runs.
 */
@Factory
public class MetricsFactory {

  /**
   * The JVM's memory, threads, classes, CPU, uptime and open files: the binders
   * micronaut-micrometer bound that read MXBeans the JVM has loaded anyway. Not its GC pauses (GC
   * notifications through JMX), executor or logback binders: nothing reads them (docs/decisions.md,
   * 35).
   */
  @Singleton
  PrometheusMeterRegistry prometheusRegistry() {
    var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    return registry;
  }

  @Singleton
  @Bean(preDestroy = "close")
  MetricsServing metricsServing(PluginConfig config, PrometheusMeterRegistry registry) {
    return new MetricsServing(config.metricsPort(), registry::scrape);
  }
}
