package dev.tessera.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ReportCheck}: what CI's E2E run fails on — a scenario missing, repeated, out of order. */
class ReportCheckTest {
  private static final List<String> SCENARIOS = List.of("01-a", "02-b", "03-c");

  private static String report(String... results) {
    var s = new StringBuilder();
    for (String r : results) {
      s.append("\n== ")
          .append(r.split(" ")[1])
          .append(" ===\n   result: FAIL indented, not a result\n");
      s.append("result: ").append(r).append(" (1.0 s)\n");
    }
    s.append("\n== summary: 3 scenarios\n  scenario   result   time   what it shows\n");
    for (String r : results) {
      String[] parts = r.split(" ");
      s.append("  ").append(parts[1]).append("   ").append(parts[0]).append("   1.0 s   x\n");
    }
    return s.append('\n').toString();
  }

  @Test
  void everyScenarioOnceInOrderAllPassIsClean() {
    assertThat(ReportCheck.faults(report("PASS 01-a", "PASS 02-b", "PASS 03-c"), SCENARIOS))
        .isEmpty();
  }

  @Test
  void aMissingScenarioFails() {
    assertThat(ReportCheck.faults(report("PASS 01-a", "PASS 03-c"), SCENARIOS))
        .contains("02-b is missing");
  }

  @Test
  void aRepeatedScenarioFails() {
    assertThat(
            ReportCheck.faults(
                report("PASS 01-a", "PASS 02-b", "PASS 02-b", "PASS 03-c"), SCENARIOS))
        .contains("02-b is shown 2 times");
  }

  @Test
  void scenariosOutOfOrderFail() {
    assertThat(ReportCheck.faults(report("PASS 02-b", "PASS 01-a", "PASS 03-c"), SCENARIOS))
        .contains("out of order: 02-b, 01-a, 03-c");
  }

  @Test
  void aFailedOrSkippedScenarioFails() {
    assertThat(ReportCheck.faults(report("PASS 01-a", "FAIL 02-b", "SKIPPED 03-c"), SCENARIOS))
        .contains("02-b is FAIL", "03-c is SKIPPED");
  }

  @Test
  void aScenarioThatIsNoDirectoryFails() {
    assertThat(
            ReportCheck.faults(
                report("PASS 01-a", "PASS 02-b", "PASS 03-c", "PASS 04-d"), SCENARIOS))
        .contains("04-d is shown but is no directory of demo/scenarios");
  }
}
