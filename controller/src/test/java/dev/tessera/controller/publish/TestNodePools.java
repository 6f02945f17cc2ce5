package dev.tessera.controller.publish;

import dev.tessera.api.events.EventPolicy;
import dev.tessera.api.events.EventRecorder;
import dev.tessera.api.events.EventSource;
import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.bench.SeededNodes;
import dev.tessera.controller.calls.CallAnswers;
import dev.tessera.controller.calls.CallDeadlines;
import dev.tessera.controller.events.BoundedEventSink;
import dev.tessera.controller.events.KubernetesEventSink;
import dev.tessera.controller.render.Fleets;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the controller's ITs build alike: a {@link NodePoolController}, and GPU nodes to publish.
 */
final class TestNodePools {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private TestNodePools() {}

  /**
   * A controller on {@code client} with {@code settings}, its Events written as {@code component}.
   */
  static NodePoolController controller(
      KubernetesClient client, PublishSettings settings, MeterRegistry metrics, String component) {
    var clock = Clock.systemUTC();
    var deadlines = new CallDeadlines(settings.callTimeout(), clock, metrics);
    return new NodePoolController(
        client,
        settings,
        new SliceRenderer(),
        new PoolReconciler(new PoolSlices("gpu.tessera.dev")),
        JSON,
        clock,
        metrics,
        new EventRecorder(
            new EventSource("tessera-controller", component),
            EventPolicy.CLIENT_GO,
            new BoundedEventSink(new KubernetesEventSink(client), deadlines),
            clock,
            10),
        deadlines);
  }

  /**
   * The metadata client as the controller makes it, its answers tied to calls no test gives up (the
   * default call timeout).
   */
  static MetadataClient metadataClient(KubernetesClient client) {
    return new MetadataClient(
        client,
        new CallAnswers(
            new CallDeadlines(
                Duration.ofMinutes(2), Clock.systemUTC(), new SimpleMeterRegistry())));
  }

  /**
   * Starts {@code controller}'s publishing on a thread of its own, as {@link LeaderElection} does
   * (it returns once the controller stops): the future ends then, or fails with what it threw.
   */
  static CompletableFuture<Void> lead(NodePoolController controller) {
    return CompletableFuture.runAsync(
        controller::start, r -> Thread.ofPlatform().daemon().name("lead").start(r));
  }

  /**
   * Node {@code name}, {@code exclusive}: its Node, its GpuNode reporting {@code template}'s GPUs
   * with UUIDs of their own ({@code n}-th), and a live plugin Lease in {@code leases}.
   */
  static void seed(
      KubernetesClient client,
      NodeInventory template,
      String name,
      int n,
      String leases,
      String owner) {
    @SuppressWarnings("unchecked")
    Map<String, Object> inventory = JSON.convertValue(Fleets.withOwnUuids(template, n), Map.class);
    SeededNodes.seed(
        client,
        name,
        Offering.EXCLUSIVE,
        template.gpus().size(),
        InventoryStatus.compact(inventory),
        leases,
        owner);
  }
}
