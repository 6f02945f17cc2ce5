package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.SimulatedInventories;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A replica whose cache stops following the cluster after its first list, through a proxy in front
 * of fabric8's CRUD mock API server: its GpuNodes' watch ends on an expired resource version (as
 * when the API server compacted it away) and the list fabric8 asks for then stalls after its
 * headers, or the watch sends an event fabric8 cannot read, on which fabric8 stops the informer for
 * good. Either way the cache stays as it was, unwatched, with no retry; before, the leader went on
 * publishing from it for good. Now its publishing throws once the list has run past the list
 * timeout, or the informer has stopped, and {@link LeaderElection} exits on that.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NodePoolControllerStuckCacheIT {
  private static final String GPU_NODES = "GET /apis/gpu.tessera.dev/v1alpha1/gpunodes?";
  private static final Predicate<String> GPU_NODES_WATCH =
      line -> line.startsWith(GPU_NODES) && line.contains("watch=true");
  private static final Predicate<String> GPU_NODES_LIST =
      line -> line.startsWith(GPU_NODES) && !line.contains("watch=true");

  private final ProxiedMockApi api = new ProxiedMockApi();
  private final StallingProxy proxy = api.proxy();
  private final KubernetesClient client = api.client();
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final NodeInventory template = SimulatedInventories.node("H100-SXM5-80GB", 8);
  private NodePoolController controller;

  NodePoolControllerStuckCacheIT() throws Exception {}

  @AfterEach
  void close() throws IOException {
    try {
      if (controller != null) {
        controller.stop();
      }
    } finally {
      api.close();
    }
  }

  @Test
  void aLeaderWhoseRelistNeverEndsGivesUpNamingIt() {
    seed("node-a", 0);
    controller = controller();
    controller.watch();
    var lead = TestNodePools.lead(controller);
    await().atMost(Duration.ofSeconds(30)).until(() -> !slices().isEmpty());

    proxy.stall(GPU_NODES_LIST);
    proxy.endWatches(GPU_NODES_WATCH, StallingProxy.EXPIRED);

    assertThat(failure(lead))
        .as("what the leader's publishing threw")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the gpunodes list asked for at")
        .hasMessageContaining("has not ended within PT2S");
    assertThat(proxy.endedWatches()).as("GpuNode watches ended").isNotEmpty();
    assertThat(proxy.stalled()).as("stalled requests").isNotEmpty().allMatch(GPU_NODES_LIST);
  }

  @Test
  void aFollowerWhoseRelistHangsGivesUpOnceItLeadsWritingNothing() {
    seed("node-a", 0);
    controller = controller();
    controller.watch();
    await().atMost(Duration.ofSeconds(30)).until(() -> gauge("reported.nodes") == 1);
    proxy.stall(GPU_NODES_LIST);
    proxy.endWatches(GPU_NODES_WATCH, StallingProxy.EXPIRED);
    await()
        .alias("the relist under way past the list timeout")
        .atMost(Duration.ofSeconds(30))
        .until(() -> gauge("cache.list.seconds") > 2.5);

    var lead = TestNodePools.lead(controller);

    assertThat(failure(lead))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the gpunodes list asked for at");
    assertThat(slices()).as("slices written from the stale cache").isEmpty();
  }

  @Test
  void aLeaderWhoseInformerStopsGivesUpNamingIt() {
    seed("node-a", 0);
    controller = controller();
    controller.watch();
    var lead = TestNodePools.lead(controller);
    await().atMost(Duration.ofSeconds(30)).until(() -> !slices().isEmpty());

    proxy.endWatches(GPU_NODES_WATCH, "{\"type\":\"MODIFIED\",\"object\":{\"kind\":");

    assertThat(failure(lead))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the gpunodes informer has stopped");
  }

  /** What {@code lead} failed with; it is to fail within 30 s. */
  private static Throwable failure(CompletableFuture<Void> lead) {
    await().alias("publishing ends").atMost(Duration.ofSeconds(30)).until(lead::isDone);
    try {
      lead.get();
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    throw new AssertionError("publishing ended without a failure");
  }

  private NodePoolController controller() {
    return TestNodePools.controller(
        client,
        new TestPublishSettings().listTimeout(Duration.ofSeconds(2)).build(),
        metrics,
        "stuck-cache-it");
  }

  private void seed(String name, int n) {
    TestNodePools.seed(api.direct(), template, name, n, "kube-node-lease", "stuck-cache-it");
  }

  private double gauge(String name) {
    return metrics.get("tessera.controller." + name).gauge().value();
  }

  private List<ResourceSlice> slices() {
    return api.direct().resources(ResourceSlice.class).list().getItems();
  }
}
