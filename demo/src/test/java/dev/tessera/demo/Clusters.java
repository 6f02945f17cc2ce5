package dev.tessera.demo;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Picks the cluster to run on ({@link ClusterChoice}). Where none is available the tests are
 * skipped with the reasons — except on CI ({@code CI=true}), where a missing cluster is a failure.
 */
final class Clusters {
  private Clusters() {}

  /** A cluster with a node Tessera can run on as host processes: the local cluster. */
  static Cluster require() {
    return decide(List.of(LocalBinaryCluster.fromEnvironment()));
  }

  /**
   * A cluster for tests that need only the API server (and scheduler): the local cluster, else kind
   * through Testcontainers where Docker exists.
   */
  static Cluster requireApiServer() {
    return decide(List.of(LocalBinaryCluster.fromEnvironment(), new KindCluster()));
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
