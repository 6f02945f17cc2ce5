package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke of hack/bench-controller-scale, so the benchmark cannot rot: its own code on the local
 * cluster's API server at the size of a test (3 nodes, mig-dynamic). The measured controller runs
 * under its own driver name, Lease namespace and election namespace, so whatever Tessera the suite
 * runs beside it neither leads for it nor publishes its nodes. Every pool is published, nothing is
 * written while nothing changes, while every plugin renews its Lease, nor after every Node's status
 * is updated; a second replica, its caches filled while it waited, takes over when the first is
 * stopped and writes nothing; and nothing it made is left.
 */
class ControllerScaleSmokeE2E {
  private static final int NODES = 3;
  private static final String NAMESPACE = "tessera-scale-smoke";
  private static final String DRIVER = "scale-smoke.bench.tessera.dev";

  @Test
  void everyPoolIsPublishedThenNothingIsWrittenAndNothingIsLeft(@TempDir Path work)
      throws Exception {
    Cluster cluster = Clusters.requireLocal();
    try (KubernetesClient client = cluster.adminClient();
        ExecutorService pool = Executors.newFixedThreadPool(4)) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .serverSideApply();
      var setting =
          new ControllerScaleBenchmark.Setting(
              DRIVER,
              NAMESPACE,
              NAMESPACE,
              Duration.ofSeconds(2),
              Duration.ofSeconds(5),
              Duration.ofSeconds(1),
              2);
      var bench =
          new ControllerScaleBenchmark(
              cluster, client, pool, work, setting, ControllerScaleBenchmark.inventory(work));
      try {
        ControllerScaleBenchmark.Figures figures =
            bench.run(NODES, Offering.MIG_DYNAMIC, "128m", "");
        assertThat(figures.raw().slices()).as("raw slices").isPositive();
        assertThat(figures.slices()).as("published slices").isEqualTo(figures.raw().slices());
        assertThat(figures.steadyWriteLines()).as("writes while nothing changes").isEmpty();
        // Every plugin renews its Lease: nothing is written, and the renewals of settled nodes
        // whose plugins stay alive are passed over without a reconcile.
        assertThat(figures.renewals().renewed()).as("Lease renewals").isGreaterThan(NODES);
        assertThat(figures.renewals().failed()).as("failed Lease renewals").isZero();
        assertThat(figures.renewals().renewedAtHalf())
            .as("renewals done when the window's second half began")
            .isPositive()
            .isLessThan(figures.renewals().renewed());
        assertThat(figures.renewWriteLines()).as("writes while the Leases are renewed").isEmpty();
        assertThat(figures.renewalsSettled()).as("renewals passed over").isPositive();
        // Every Node's status updated as its kubelet does: the controller watches Nodes as
        // metadata, and passes each update over, for none changes a Node's UID or offering.
        assertThat(figures.statusRound().updates()).as("Node status updates").isEqualTo(NODES);
        assertThat(figures.statusRound().unchanged())
            .as("Node updates passed over")
            .isGreaterThanOrEqualTo(NODES);
        assertThat(figures.statusRound().writeLines()).as("writes after them").isEmpty();
        assertThat(figures.rssConvergedKib()).as("controller RSS").isPositive();
        // The controller's log says what each informer listed at its start, and the benchmark reads
        // it. GpuNodes are cluster-wide: a cluster where Tessera runs has its own besides the
        // benchmark's, so at least NODES.
        assertThat(figures.lists())
            .as("the start's lists")
            .contains("nodes ")
            .contains("leases ")
            .contains("resourceslices ");
        Matcher listed = Pattern.compile("gpunodes (\\d+) in ").matcher(figures.lists());
        assertThat(listed.find()).as("the GpuNodes' list in " + figures.lists()).isTrue();
        assertThat(Integer.parseInt(listed.group(1)))
            .as("GpuNodes listed at the start")
            .isGreaterThanOrEqualTo(NODES);
        // A second replica fills its caches while the first leads; once the first is stopped, it
        // leads, reconciles every node from them and finds nothing to write. Then a third takes
        // over from the second the same way.
        assertThat(figures.handovers()).as("handovers").hasSize(2);
        for (var handover : figures.handovers()) {
          assertThat(handover.followerSyncedSeconds()).as("the next's caches synced").isNotNaN();
          assertThat(handover.toReconciledSeconds())
              .as("seconds until the next reconciled every node")
              .isGreaterThanOrEqualTo(handover.toLeadingSeconds());
          assertThat(handover.reconciles().values().stream().mapToLong(Long::longValue).sum())
              .as("the next's reconciles")
              .isGreaterThanOrEqualTo(NODES);
          assertThat(handover.writeLines()).as("the next's writes").isEmpty();
        }
        assertThat(figures.table()).contains("| handovers after the first (1): ");
        assertThat(figures.table()).contains("| ResourceSlices published | " + figures.slices());
      } finally {
        bench.cleanUp();
        client.namespaces().withName(NAMESPACE).delete();
      }
      assertThat(client.nodes().list().getItems())
          .noneMatch(n -> n.getMetadata().getName().startsWith(ControllerScaleBenchmark.PREFIX));
      // The controller logged in as a ServiceAccount bound to cluster-admin: the binding is gone.
      assertThat(
              client
                  .rbac()
                  .clusterRoleBindings()
                  .withName(ControllerScaleBenchmark.loginAccount(setting))
                  .get())
          .as("the controller's login's binding")
          .isNull();
      // The slices go with their Nodes (owner references, the garbage collector).
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!bench.ownSlices().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
      assertThat(bench.ownSlices()).as("the measured controller's slices").isEmpty();
      assertThat(client.leases().inNamespace(NAMESPACE).list().getItems())
          .noneMatch(l -> l.getMetadata().getName().contains(ControllerScaleBenchmark.PREFIX));
    }
  }
}
