package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * Which plugin Lease and Node events name their node, against fabric8's CRUD mock API server: every
 * one, except a renewal of a node whose pool is settled with its plugin alive, which the renewal
 * keeps alive, and a Node's update that leaves its UID and offering label as they were.
 */
@EnableKubernetesMockClient(crud = true)
class PoolInformersEventsIT {
  private static final String NAMESPACE = "kube-node-lease";

  KubernetesClient client;

  private final TestClock clock = new TestClock(Instant.parse("2026-12-04T06:00:00Z"));
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final Set<String> settledAlive = ConcurrentHashMap.newKeySet();
  private final LinkedBlockingQueue<String> named = new LinkedBlockingQueue<>();
  private MetadataClient metadata;
  private PoolInformers informers;

  @BeforeEach
  void start() {
    metadata = TestNodePools.metadataClient(client);
    informers =
        new PoolInformers(
            client,
            new TestPublishSettings().leaseNamespace(NAMESPACE).workers(1).build(),
            new ReportedNodes(JsonMapper.builder().build()),
            clock,
            metrics,
            metadata);
    informers.start(named::add, settledAlive::contains);
  }

  @AfterEach
  void stop() {
    informers.close();
    metadata.close();
  }

  @Test
  void aRenewalOfASettledLiveNodeNamesNothingAndEveryOtherEventNamesIt() throws Exception {
    var lease = write(lease(clock.instant()));
    assertThat(named.poll(10, TimeUnit.SECONDS)).as("a new Lease").isEqualTo("node-a");

    settledAlive.add("node-a");
    clock.advance(Duration.ofSeconds(10));
    lease = write(renewed(lease, clock.instant()));
    awaitSettledRenewals(1);
    assertThat(named).as("a renewal of a settled, live node").isEmpty();

    settledAlive.remove("node-a");
    clock.advance(Duration.ofSeconds(10));
    lease = write(renewed(lease, clock.instant()));
    assertThat(named.poll(10, TimeUnit.SECONDS))
        .as("a renewal of a node not settled alive (withdrawn, or its last reconcile wrote)")
        .isEqualTo("node-a");

    settledAlive.add("node-a");
    clock.advance(Duration.ofMinutes(5));
    lease = write(renewed(lease, clock.instant().minus(Duration.ofMinutes(2))));
    assertThat(named.poll(10, TimeUnit.SECONDS))
        .as("an update that leaves the plugin dead, though the node was settled alive")
        .isEqualTo("node-a");

    client.leases().inNamespace(NAMESPACE).resource(lease).delete();
    assertThat(named.poll(10, TimeUnit.SECONDS)).as("a deleted Lease").isEqualTo("node-a");
    assertThat(settledRenewals()).isEqualTo(1);
  }

  @Test
  void aNodeUpdateNamesItsNodeOnlyWhenItsOfferingOrUidChanged() throws Exception {
    var node =
        client
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName("node-b")
                    .addToLabels(Offering.NODE_LABEL, "exclusive")
                    .endMetadata()
                    .build())
            .create();
    assertThat(named.poll(10, TimeUnit.SECONDS)).as("a new Node").isEqualTo("node-b");

    // As the kubelet updates its Node: the status and another label change, the offering does not.
    node =
        client
            .nodes()
            .resource(
                new NodeBuilder(node)
                    .editMetadata()
                    .addToLabels("topology.kubernetes.io/zone", "z1")
                    .endMetadata()
                    .withNewStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus("True")
                    .endCondition()
                    .endStatus()
                    .build())
            .update();
    awaitUnchangedNodes(1);
    assertThat(named).as("a status update").isEmpty();

    node = update(new NodeBuilder(node).editMetadata().addToLabels(Offering.NODE_LABEL, "shared"));
    assertThat(named.poll(10, TimeUnit.SECONDS)).as("a new offering").isEqualTo("node-b");

    node = update(new NodeBuilder(node).editMetadata().removeFromLabels(Offering.NODE_LABEL));
    assertThat(named.poll(10, TimeUnit.SECONDS))
        .as("the offering label removed")
        .isEqualTo("node-b");

    client.nodes().resource(node).delete();
    assertThat(named.poll(10, TimeUnit.SECONDS)).as("a deleted Node").isEqualTo("node-b");
    assertThat(unchangedNodes()).isEqualTo(1);
  }

  @Test
  void aNodeOfTheSameNameButAnotherUidIsAChange() {
    var before = node("uid-1", "exclusive");
    assertThat(PoolInformers.samePlanInputs(before, node("uid-1", "exclusive"))).isTrue();
    assertThat(PoolInformers.samePlanInputs(before, node("uid-2", "exclusive"))).isFalse();
    assertThat(PoolInformers.samePlanInputs(before, node("uid-1", "shared"))).isFalse();
    assertThat(PoolInformers.samePlanInputs(before, node("uid-1", null))).isFalse();
    assertThat(PoolInformers.samePlanInputs(null, node("uid-1", "exclusive"))).isFalse();
  }

  private static Node node(String uid, String offering) {
    var builder = new NodeBuilder().withNewMetadata().withName("node-c").withUid(uid).endMetadata();
    if (offering != null) {
      builder.editMetadata().addToLabels(Offering.NODE_LABEL, offering).endMetadata();
    }
    return builder.build();
  }

  private Node update(NodeBuilder.MetadataNested<NodeBuilder> metadata) {
    return client.nodes().resource(metadata.endMetadata().build()).update();
  }

  private Lease write(Lease lease) {
    var leases = client.leases().inNamespace(NAMESPACE);
    return lease.getMetadata().getResourceVersion() == null
        ? leases.resource(lease).create()
        : leases.resource(lease).update();
  }

  private static Lease lease(Instant renewed) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withName("tessera-node-a")
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withHolderIdentity("plugin-a")
        .withLeaseDurationSeconds(40)
        .withRenewTime(ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC))
        .endSpec()
        .build();
  }

  private static Lease renewed(Lease lease, Instant at) {
    return new LeaseBuilder(lease)
        .editSpec()
        .withRenewTime(ZonedDateTime.ofInstant(at, ZoneOffset.UTC))
        .endSpec()
        .build();
  }

  private double settledRenewals() {
    return metrics.counter("tessera.controller.lease.renewals.settled").count();
  }

  private double unchangedNodes() {
    return metrics.counter("tessera.controller.node.updates.unchanged").count();
  }

  private void awaitUnchangedNodes(int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (unchangedNodes() < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(unchangedNodes()).as("Node updates passed over").isEqualTo(count);
  }

  private void awaitSettledRenewals(int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (settledRenewals() < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(settledRenewals()).as("renewals passed over").isEqualTo(count);
  }
}
