package dev.tessera.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which cluster the end-to-end tests run on (pure): the first candidate that is available; none
 * means skip with every candidate's reason — except on CI, where it is a failure, never a silent
 * pass.
 */
sealed interface ClusterChoice {
  record Use(Cluster cluster) implements ClusterChoice {}

  record Skip(String reason) implements ClusterChoice {}

  record Fail(String reason) implements ClusterChoice {}

  static ClusterChoice of(List<Cluster> candidates, boolean onCi) {
    var reasons = new ArrayList<String>();
    for (Cluster candidate : candidates) {
      Optional<String> reason = candidate.unavailableReason();
      if (reason.isEmpty()) {
        return new Use(candidate);
      }
      reasons.add(reason.get());
    }
    String why = "no cluster to run on: " + String.join("; ", reasons);
    return onCi ? new Fail("the E2E tier must run on CI, but " + why) : new Skip(why);
  }
}
