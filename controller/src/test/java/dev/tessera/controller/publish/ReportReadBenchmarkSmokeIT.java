package dev.tessera.controller.publish;

import org.junit.jupiter.api.Test;

/**
 * {@code hack/bench-controller}'s report benchmark at test size, so that it cannot rot between the
 * runs that take figures: it reads a small fleet's reports in both forms, and throws if one is
 * rejected or does not read as the inventory it was made of. Its figures mean nothing at this size.
 */
class ReportReadBenchmarkSmokeIT {

  @Test
  void aSmallFleetsReportsReadInBothForms() throws Exception {
    ReportReadBenchmark.main(new String[] {"4", "2"});
  }
}
