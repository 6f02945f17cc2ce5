package dev.tessera.controller.config;

import dev.tessera.api.events.EventPolicy;
import dev.tessera.api.events.EventRecorder;
import dev.tessera.api.events.EventSource;
import dev.tessera.api.health.TaintEffect;
import dev.tessera.controller.calls.CallAnswers;
import dev.tessera.controller.calls.CallDeadlines;
import dev.tessera.controller.events.BoundedEventSink;
import dev.tessera.controller.events.KubernetesEventSink;
import dev.tessera.controller.publish.ElectionSettings;
import dev.tessera.controller.publish.PoolReconciler;
import dev.tessera.controller.publish.PoolSlices;
import dev.tessera.controller.publish.PublishSettings;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;

/** Builds the controller's long-lived objects from its configuration. */
@Factory
public class ControllerFactory {
  /** The field manager of everything the controller writes. */
  public static final String FIELD_MANAGER = "tessera-controller";

  /** Retries of a failed API request (waits of 100, 200, 400 ms: under a second in all). */
  private static final int REQUEST_RETRIES = 3;

  /** Events waiting for their writer: taint changes are rare, a fleet's flap is not. */
  private static final int EVENT_QUEUE = 1000;

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
  KubernetesClient kubernetesClient(ControllerConfig config, CallDeadlines deadlines) {
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
    // The GpuNodes' status writes and the Events' writes are given up past the call timeout: their
    // answers then too.
    return new KubernetesClientBuilder()
        .withConfig(client)
        .withKubernetesSerialization(ControllerSerialization.create())
        .withHttpClientBuilderConsumer(
            b -> b.addOrReplaceInterceptor(CallAnswers.NAME, new CallAnswers(deadlines)))
        .build();
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
        config.workers(),
        config.listTimeout(),
        config.callTimeout());
  }

  /**
   * The controller's API calls under way, given up past {@link PublishSettings#callTimeout}: a
   * node's slice reads and writes, the GpuNodes' status writes and the Events' writes.
   */
  @Singleton
  CallDeadlines callDeadlines(PublishSettings settings, Clock clock, MeterRegistry metrics) {
    return new CallDeadlines(settings.callTimeout(), clock, metrics);
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

  /**
   * The GpuNodes' Events (taints put on and lifted), written on the recorder's own thread, each
   * given up past the call timeout; dropped ones are counted by why. The reporting instance is this
   * replica (only the leader records).
   */
  @Singleton
  @Bean(preDestroy = "close")
  EventRecorder eventRecorder(
      ControllerConfig config,
      KubernetesClient client,
      Clock clock,
      MeterRegistry metrics,
      CallDeadlines deadlines) {
    var recorder =
        new EventRecorder(
            new EventSource(FIELD_MANAGER, config.electionIdentity()),
            EventPolicy.CLIENT_GO,
            new BoundedEventSink(new KubernetesEventSink(client), deadlines),
            clock,
            EVENT_QUEUE);
    for (EventRecorder.Dropped reason : EventRecorder.Dropped.values()) {
      FunctionCounter.builder("tessera.controller.events.dropped", recorder, r -> r.dropped(reason))
          .description("Events not written: rate limited, queue full, or refused by the API server")
          .tag("reason", reason.name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .register(metrics);
    }
    FunctionCounter.builder("tessera.controller.events.written", recorder, EventRecorder::written)
        .description("Event creates and repeats the API server took")
        .register(metrics);
    return recorder;
  }
}
