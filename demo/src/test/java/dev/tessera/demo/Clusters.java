package dev.tessera.demo;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Picks the cluster to run on ({@link ClusterChoice}): the local cluster, or kind through
 * Testcontainers when asked ({@code -Dtessera.e2e.cluster=kind} or {@code
 * TESSERA_E2E_CLUSTER=kind}: what {@code hack/test-kind} runs the scenario tests on). Where none is
 * available the tests are skipped with the reasons — except on CI ({@code CI=true}), where a
 * missing cluster is a failure.
 */
final class Clusters {
  // One kind node per test JVM, as there is one local cluster per machine: started on first use.
  private static final KindCluster KIND = new KindCluster();

  private Clusters() {}

  /** The cluster the scenario tests run Tessera on (its chart, or host processes). */
  static Cluster require() {
    return decide(List.of(kindAsked() ? KIND : LocalBinaryCluster.fromEnvironment()));
  }

  /**
   * The cluster the scenario tests run on, where its components run as processes of this host (the
   * local cluster): for tests that stop, start or read them. Elsewhere (kind) the test is skipped.
   */
  static Cluster requireLocal() {
    Cluster cluster = require();
    Assumptions.assumeTrue(
        cluster.components().isPresent(),
        "the API server runs as a process of this host (the local cluster)");
    return cluster;
  }

  /**
   * A cluster for tests that need only the API server (and scheduler): the one asked for, else the
   * local cluster, else kind through Testcontainers where an engine answers.
   */
  static Cluster requireApiServer() {
    return decide(
        kindAsked() ? List.of(KIND) : List.of(LocalBinaryCluster.fromEnvironment(), KIND));
  }

  private static boolean kindAsked() {
    String asked = System.getProperty("tessera.e2e.cluster", "");
    if (asked.isBlank()) {
      asked = System.getenv().getOrDefault("TESSERA_E2E_CLUSTER", "");
    }
    return switch (asked.strip()) {
      case "", "local" -> false;
      case "kind" -> true;
      default ->
          throw new IllegalArgumentException(
              "tessera.e2e.cluster must be local or kind, not \"" + asked + "\"");
    };
  }

  private static Cluster decide(List<Cluster> candidates) {
    boolean onCi = "true".equals(System.getenv("CI"));
    return switch (ClusterChoice.of(candidates, onCi)) {
      case ClusterChoice.Use use -> use.cluster();
      case ClusterChoice.Fail failure -> {
        fail(failure.reason());
        throw new IllegalStateException("unreachable");
      }
      case ClusterChoice.Skip skip -> {
        Assumptions.abort("E2E skipped: " + skip.reason());
        throw new IllegalStateException("unreachable");
      }
    };
  }
}
