package dev.tessera.demo;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * Picks the cluster to run on. Where none is available the tests are skipped with the reason —
 * except on CI ({@code CI=true}), where a missing cluster is a failure, never a silent pass.
 */
final class Clusters {
  private Clusters() {}

  static Cluster require() {
    Cluster local = LocalBinaryCluster.fromEnvironment();
    var reason = local.unavailableReason();
    if (reason.isEmpty()) {
      return local;
    }
    if ("true".equals(System.getenv("CI"))) {
      fail("the E2E tier must run on CI, but " + reason.get());
    }
    Assumptions.abort("E2E skipped: " + reason.get());
    throw new IllegalStateException("unreachable");
  }
}
