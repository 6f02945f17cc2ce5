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
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader whose slice write's answer stalls after its headers (fabric8's JDK client has no timeout
 * after them), through a proxy in front of fabric8's CRUD mock API server: the write is given up
 * once it has run past the call timeout, its node retried after its backoff, and the one worker it
 * held goes on to the other nodes; the stalled answer is cancelled, its connection closed. Before,
 * the write held its worker, and that node, for good; and then its connection, for good.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NodePoolControllerHungWriteIT {
  private static final String SLICE_CREATE =
      "POST /apis/resource.k8s.io/v1/resourceslices HTTP/1.1";

  private final ProxiedMockApi api = new ProxiedMockApi();
  private final StallingProxy proxy = api.proxy();
  private final KubernetesClient client = api.client();
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private NodeInventory template;
  private NodePoolController controller;

  NodePoolControllerHungWriteIT() throws IOException {}

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
  void aSliceWriteWhoseAnswerStallsIsGivenUpAndItsNodeRetried() throws Exception {
    template = SimulatedInventories.node("H100-SXM5-80GB", 8);
    seed("node-a", 0);
    seed("node-b", 1);
    // The first slice create stalls; every request after it passes.
    var first = new AtomicBoolean(true);
    proxy.stall(line -> line.equals(SLICE_CREATE) && first.getAndSet(false));
    controller = controller(Duration.ofSeconds(2));

    controller.watch();
    TestNodePools.lead(controller);

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(slicedNodes())
                    .as("nodes with slices (one worker, its first write stalled)")
                    .containsExactlyInAnyOrder("node-a", "node-b"));
    assertThat(proxy.stalled()).containsExactly(SLICE_CREATE);
    await()
        .alias("the given-up write's stalled answer ended by the controller")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(proxy.endedByClient()).containsExactly(SLICE_CREATE));
    assertThat(
            metrics.get("tessera.controller.calls.abandoned").tag("call", "slice-writes").counter())
        .satisfies(c -> assertThat(c.count()).as("slice writes given up").isEqualTo(1));
    assertThat(metrics.find("tessera.controller.slice.writes.rejected").counter())
        .as("the given-up write counted as refused by the API server")
        .isNull();
    assertThat(metrics.get("tessera.controller.reconcile.retries").counter().count())
        .as("reconciles retried")
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void aSliceCreateAppliedWhoseAnswerStallsIsNeitherMadeTwiceNorCountedRefused() throws Exception {
    template = SimulatedInventories.node("H100-SXM5-80GB", 8);
    seed("node-a", 0);
    // The API server creates the first slice, and its answer stalls.
    var first = new AtomicBoolean(true);
    proxy.stallAfterApplying(line -> line.equals(SLICE_CREATE) && first.getAndSet(false));
    controller = controller(Duration.ofSeconds(2));

    controller.watch();
    TestNodePools.lead(controller);

    await()
        .alias("the create given up and the node retried")
        .atMost(Duration.ofSeconds(60))
        .until(() -> retries() >= 1);
    await()
        .alias("the node settled after its retry (nothing queued or backing off for 2 s)")
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                metrics.get("tessera.controller.queue.depth").gauge().value() == 0
                    && metrics.get("tessera.controller.queue.backoff").gauge().value() == 0);
    assertThat(proxy.stalled()).containsExactly(SLICE_CREATE);
    assertThat(proxy.endedByClient()).containsExactly(SLICE_CREATE);
    assertThat(api.direct().resources(ResourceSlice.class).list().getItems())
        .as("node-a's slices (exclusive, 8 GPUs: one)")
        .singleElement()
        .satisfies(s -> assertThat(s.getSpec().getNodeName()).isEqualTo("node-a"));
    assertThat(metrics.find("tessera.controller.slice.writes.rejected").counter())
        .as("the applied, given-up write counted as refused")
        .isNull();
    assertThat(retries())
        .as("reconciles retried (the node settles on its first retry)")
        .isEqualTo(1);
  }

  private double retries() {
    var retries = metrics.find("tessera.controller.reconcile.retries").counter();
    return retries == null ? 0 : retries.count();
  }

  private NodePoolController controller(Duration callTimeout) {
    return TestNodePools.controller(
        client,
        new TestPublishSettings().workers(1).callTimeout(callTimeout).build(),
        metrics,
        "hung-write-it");
  }

  private void seed(String name, int n) {
    TestNodePools.seed(api.direct(), template, name, n, "kube-node-lease", "hung-write-it");
  }

  private Set<String> slicedNodes() {
    return api.direct().resources(ResourceSlice.class).list().getItems().stream()
        .map(s -> s.getSpec().getNodeName())
        .collect(Collectors.toSet());
  }
}
