package dev.tessera.demo.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a written demo report against the scenario directories: every scenario's result line once,
 * in the directories' order, each PASS; the summary lists the same; no problem noted. Run by
 * hack/test-e2e after the E2E tier (CI's run): {@code java -cp demo/target/test-classes
 * dev.tessera.demo.report.ReportCheck demo/target/demo-report.txt demo/scenarios}; exits 1 with
 * each fault on stderr. Only the JDK on its class path.
 */
public final class ReportCheck {
  private static final Pattern RESULT =
      Pattern.compile("^" + DemoReport.RESULT + "(PASS|FAIL|SKIPPED|NOT RUN) (\\S+) ");
  private static final Pattern ROW =
      Pattern.compile("^  (\\d{2}-\\S+) +(PASS|FAIL|SKIPPED|NOT RUN) ");

  private ReportCheck() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ReportCheck REPORT SCENARIOS_DIR");
      System.exit(2);
    }
    Path report = Path.of(args[0]);
    if (!Files.isRegularFile(report)) {
      System.err.println("demo report check: no report at " + report + " (did the E2E tier run?)");
      System.exit(1);
    }
    List<String> faults = faults(Files.readString(report), ScenarioCatalog.names(Path.of(args[1])));
    if (!faults.isEmpty()) {
      faults.forEach(f -> System.err.println("demo report check: " + f));
      System.exit(1);
    }
    System.out.println(
        "demo report check: every scenario once, in order, all PASS (" + report + ")");
  }

  /** What is wrong with {@code report} for {@code scenarios} (in their order); empty if nothing. */
  static List<String> faults(String report, List<String> scenarios) {
    var faults = new ArrayList<String>();
    var shown = new ArrayList<String>();
    var summarized = new ArrayList<String>();
    boolean inSummary = false;
    for (String line : report.lines().toList()) {
      Matcher result = RESULT.matcher(line);
      if (result.find()) {
        shown.add(result.group(2));
        if (!result.group(1).equals("PASS")) {
          faults.add(result.group(2) + " is " + result.group(1));
        }
      }
      if (line.startsWith(DemoReport.SUMMARY)) {
        inSummary = true;
      } else if (inSummary && line.isBlank()) {
        inSummary = false;
      } else if (inSummary) {
        Matcher row = ROW.matcher(line);
        if (row.find()) {
          summarized.add(row.group(1));
          if (!row.group(2).equals("PASS")) {
            faults.add("the summary says " + row.group(1) + " is " + row.group(2));
          }
        }
      }
      if (line.startsWith(DemoReport.PROBLEM)) {
        faults.add(line);
      }
    }
    for (String s : scenarios) {
      long times = shown.stream().filter(s::equals).count();
      if (times == 0) {
        faults.add(s + " is missing");
      } else if (times > 1) {
        faults.add(s + " is shown " + times + " times");
      }
    }
    for (String s : shown) {
      if (!scenarios.contains(s)) {
        faults.add(s + " is shown but is no directory of demo/scenarios");
      }
    }
    var inOrder = shown.stream().filter(scenarios::contains).distinct().toList();
    var expected = scenarios.stream().filter(inOrder::contains).toList();
    if (!inOrder.equals(expected)) {
      faults.add("out of order: " + String.join(", ", inOrder));
    }
    if (!summarized.equals(scenarios)) {
      faults.add("the summary lists " + summarized + ", not " + scenarios);
    }
    return faults;
  }
}
