package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.SimulatedInventories;
import dev.tessera.plugin.it.MockApiServer;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A replica that waits to lead, against fabric8's CRUD mock API server: its caches fill and follow
 * the fleet, it writes nothing and queues nothing, and once it leads it publishes every node it
 * knows, those that came while it waited among them.
 */
class NodePoolControllerStandbyIT {
  private static final String LEASES = "kube-node-lease";

  private final MockApiServer api = new MockApiServer();
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private NodeInventory template;
  private final NodePoolController controller =
      TestNodePools.controller(
          api.client(),
          new TestPublishSettings().leaseNamespace(LEASES).build(),
          metrics,
          "standby-it");

  @AfterEach
  void close() {
    try {
      controller.stop();
    } finally {
      api.close();
    }
  }

  @Test
  void aFollowerKeepsItsCachesAndPublishesEveryNodeOnceItLeads() throws Exception {
    template = SimulatedInventories.node("H100-SXM5-80GB", 8);
    seed("node-a", 0);
    controller.watch();
    await().atMost(Duration.ofSeconds(30)).until(() -> gauge("reported.nodes") == 1);
    // A node that comes while the replica follows: its events name it to nobody yet.
    seed("node-b", 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> gauge("reported.nodes") == 2);

    assertThat(gauge("queue.depth")).as("nodes queued by a follower").isZero();
    assertThat(api.client().resources(ResourceSlice.class).list().getItems())
        .as("slices written by a follower")
        .isEmpty();

    TestNodePools.lead(controller);

    await().atMost(Duration.ofSeconds(30)).until(() -> slicedNodes().size() == 2);
    assertThat(slicedNodes()).containsExactlyInAnyOrder("node-a", "node-b");
    // Leading, the events name their nodes again: a third node is published without a resync.
    seed("node-c", 2);
    await().atMost(Duration.ofSeconds(30)).until(() -> slicedNodes().contains("node-c"));
  }

  private void seed(String name, int n) {
    TestNodePools.seed(api.client(), template, name, n, LEASES, "standby-it");
  }

  private double gauge(String name) {
    return metrics.get("tessera.controller." + name).gauge().value();
  }

  private Set<String> slicedNodes() {
    return api.client().resources(ResourceSlice.class).list().getItems().stream()
        .map(s -> s.getSpec().getNodeName())
        .collect(Collectors.toSet());
  }
}
