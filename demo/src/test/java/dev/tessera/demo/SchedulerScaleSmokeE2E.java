package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.tessera.api.DriverNames;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke of hack/bench-scheduler-scale, so the benchmark cannot rot: its own code on the local
 * cluster's real scheduler at the size of a test (3 fake nodes, 12 pods per run, every offering and
 * mig-dynamic's no-counters and pool-per-gpu variants), without kwok. Each run binds every pod;
 * nothing it made is left.
 */
class SchedulerScaleSmokeE2E {
  private static final int NODES = 3;
  private static final int PODS = 12;

  @Test
  void everyPodIsBoundInEveryRunAndNothingIsLeft(@TempDir Path work) throws Exception {
    Cluster cluster = Clusters.require();
    assumeThat(cluster.components())
        .as("the scheduler runs as a process of this host (the local cluster)")
        .isPresent();
    NodeInventory template = SchedulerScaleBenchmark.inventory(work);
    try (KubernetesClient client = cluster.adminClient();
        ExecutorService pool = Executors.newFixedThreadPool(4)) {
      var bench =
          new SchedulerScaleBenchmark(client, cluster.components().orElseThrow(), template, pool);
      try {
        bench.setUp(NODES);
        for (var offering : List.of(Offering.EXCLUSIVE, Offering.MIG_DYNAMIC, Offering.SHARED)) {
          SchedulerScaleBenchmark.Run run = bench.run(NODES, PODS, offering, "published");
          assertThat(run.bound()).as(offering.label() + ": pods bound").isEqualTo(PODS);
          assertThat(run.podsPerSecond()).as(offering.label() + ": pods/s").isPositive();
        }
        SchedulerScaleBenchmark.Run plain =
            bench.run(NODES, PODS, Offering.MIG_DYNAMIC, "no-counters");
        assertThat(plain.bound()).as("mig-dynamic without counters: pods bound").isEqualTo(PODS);
        SchedulerScaleBenchmark.Run split =
            bench.run(NODES, PODS, Offering.MIG_DYNAMIC, "pool-per-gpu");
        assertThat(split.bound()).as("mig-dynamic in a pool per GPU: pods bound").isEqualTo(PODS);
      } finally {
        bench.tearDown();
      }
      assertThat(client.nodes().list().getItems())
          .noneMatch(n -> n.getMetadata().getName().startsWith(SchedulerScaleBenchmark.PREFIX));
      assertThat(
              client
                  .dynamicResourceAllocation()
                  .v1()
                  .resourcesSlices()
                  .withField("spec.driver", DriverNames.DEFAULT_DRIVER)
                  .list()
                  .getItems())
          .noneMatch(
              s ->
                  s.getSpec().getNodeName() != null
                      && s.getSpec().getNodeName().startsWith(SchedulerScaleBenchmark.PREFIX));
      assertThat(
              client
                  .dynamicResourceAllocation()
                  .v1()
                  .resourceClaims()
                  .inAnyNamespace()
                  .list()
                  .getItems())
          .noneMatch(c -> c.getMetadata().getNamespace().equals(SchedulerScaleBenchmark.NAMESPACE));
    }
  }
}
