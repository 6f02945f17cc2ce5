package dev.tessera.controller.render;

import org.junit.jupiter.api.Test;

/**
 * {@code hack/bench-controller}'s benchmark at test size, so that it cannot rot between the runs
 * that take figures: it renders and diffs a small fleet, and throws if a resync at steady state
 * would write anything. Its figures mean nothing at this size.
 */
class RenderBenchmarkSmokeIT {

  @Test
  void aSteadyFleetRendersToNoWrites() throws Exception {
    RenderBenchmark.main(new String[] {"4", "2"});
  }
}
