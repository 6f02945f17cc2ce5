package dev.tessera.demo.report;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What a person reads: each scenario of the catalog once, in its order — its purpose, the YAML
 * applied, what its test printed (what each pod saw, the claims' allocation and status), a result
 * line — then a summary table. A scenario is printed as soon as it and every scenario before it
 * have a result, whatever order they ran in. {@link ReportCheck} reads the same text back.
 */
final class DemoReport {
  /** A scenario's (or another test's) result, as printed. */
  enum Status {
    PASS,
    FAIL,
    SKIPPED,
    NOT_RUN;

    String label() {
      return this == NOT_RUN ? "NOT RUN" : name();
    }
  }

  /** How a scenario's test went: {@code test} names it, {@code failure} says why it failed. */
  record Outcome(Status status, Duration time, String test, String output, String failure) {}

  static final String RESULT = "result: ";
  static final String SUMMARY = "== summary";
  static final String PROBLEM = "problem: ";
  private static final int WIDTH = 100;
  private static final int PURPOSE_COLUMN = 58;

  private final ScenarioCatalog catalog;
  private final Set<String> planned;
  private final Consumer<String> out;
  private final Map<String, Outcome> outcomes = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  private final List<String> otherFailures = new ArrayList<>();
  private final StringBuilder text = new StringBuilder();
  private int otherPassed;
  private int next;

  /**
   * A report of {@code catalog}'s scenarios, of which {@code planned} are in this run (the others
   * are summed up as not run); {@code out} gets each piece of text as it is ready.
   */
  DemoReport(ScenarioCatalog catalog, Set<String> planned, Consumer<String> out) {
    this.catalog = catalog;
    this.planned = new LinkedHashSet<>(planned);
    this.out = out;
  }

  /** Something wrong with the run itself (a scenario shown twice, or unknown). */
  void problem(String problem) {
    problems.add(problem);
  }

  /** A scenario's result; prints it and every later one now in order. */
  void finished(String scenario, Outcome outcome) {
    if (outcomes.putIfAbsent(scenario, outcome) != null) {
      problem(scenario + " has a second result (" + outcome.test() + ")");
    }
    release();
  }

  boolean hasResult(String scenario) {
    return outcomes.containsKey(scenario);
  }

  /** A test that shows no scenario: counted, and printed only when it failed. */
  void other(String test, Status status, String output, String failure) {
    if (status == Status.FAIL) {
      otherFailures.add(test);
      emit("\n-- FAIL " + test + " (not a scenario)\n" + indent(output) + indent(failure));
    } else if (status == Status.PASS) {
      otherPassed++;
    }
  }

  private void release() {
    List<String> names = catalog.names();
    while (next < names.size()) {
      String name = names.get(next);
      if (planned.contains(name)) {
        Outcome outcome = outcomes.get(name);
        if (outcome == null) {
          return;
        }
        emit(section(catalog.get(name).orElseThrow(), outcome));
      }
      next++;
    }
  }

  /** The scenarios still without a result (the run ended first), then the summary; all the text. */
  String finish(Duration total) {
    for (String name : catalog.names()) {
      if (planned.contains(name) && !outcomes.containsKey(name)) {
        outcomes.put(
            name,
            new Outcome(
                Status.FAIL, Duration.ZERO, "", "", "the run ended before it had a result"));
      }
    }
    release();
    emit(summary(total));
    return text.toString();
  }

  private void emit(String piece) {
    text.append(piece);
    out.accept(piece);
  }

  private String section(ScenarioCatalog.Entry entry, Outcome outcome) {
    var s = new StringBuilder("\n");
    String title = "== " + entry.name() + " ";
    s.append(title).append("=".repeat(Math.max(3, WIDTH - title.length()))).append('\n');
    for (String line : wrap(entry.purpose(), WIDTH - 3)) {
      s.append("   ").append(line).append('\n');
    }
    if (!outcome.test().isEmpty()) {
      s.append("   (shown by ").append(outcome.test()).append(")\n");
    }
    // scenario.yaml, and the directory's other files that the test says it applied.
    entry
        .yaml()
        .forEach(
            (file, yaml) -> {
              String path = "demo/scenarios/" + entry.name() + "/" + file;
              if (!file.equals("scenario.yaml") && !outcome.output().contains("applied " + path)) {
                return;
              }
              s.append("\n-- the YAML applied: demo/scenarios/")
                  .append(entry.name())
                  .append('/')
                  .append(file)
                  .append('\n')
                  .append(indent(yaml));
            });
    s.append("\n-- what the test saw (each pod, the claims' allocation and status):\n");
    s.append(outcome.output().isBlank() ? "   (nothing printed)\n" : indent(outcome.output()));
    if (!outcome.failure().isBlank()) {
      s.append(
          outcome.status() == Status.SKIPPED
              ? "\n-- why it was skipped:\n"
              : "\n-- why it failed:\n");
      s.append(indent(outcome.failure()));
    }
    s.append('\n')
        .append(RESULT)
        .append(outcome.status().label())
        .append(' ')
        .append(entry.name())
        .append(" (")
        .append(time(outcome.time()))
        .append(")\n");
    return s.toString();
  }

  private String summary(Duration total) {
    var count = new HashMap<Status, Integer>();
    var rows = new StringBuilder();
    for (ScenarioCatalog.Entry e : catalog.scenarios()) {
      Outcome o = outcomes.get(e.name());
      Status status = o == null ? Status.NOT_RUN : o.status();
      count.merge(status, 1, Integer::sum);
      rows.append(
          "  %-38s %-8s %-10s %s\n"
              .formatted(
                  e.name(),
                  status.label(),
                  o == null ? "" : time(o.time()),
                  shorten(e.purpose(), PURPOSE_COLUMN)));
    }
    var s = new StringBuilder("\n");
    s.append(SUMMARY)
        .append(
            ": %d scenarios, %d PASS, %d FAIL, %d SKIPPED, %d NOT RUN (%s in all)\n"
                .formatted(
                    catalog.scenarios().size(),
                    count.getOrDefault(Status.PASS, 0),
                    count.getOrDefault(Status.FAIL, 0),
                    count.getOrDefault(Status.SKIPPED, 0),
                    count.getOrDefault(Status.NOT_RUN, 0),
                    time(total)));
    s.append("  %-38s %-8s %-10s %s\n".formatted("scenario", "result", "time", "what it shows"));
    s.append(rows);
    if (otherPassed > 0 || !otherFailures.isEmpty()) {
      s.append(
          "\nother tests (not scenarios): %d passed, %d failed%s\n"
              .formatted(
                  otherPassed,
                  otherFailures.size(),
                  otherFailures.isEmpty() ? "" : ": " + String.join(", ", otherFailures)));
    }
    for (String p : problems) {
      s.append(PROBLEM).append(p).append('\n');
    }
    return s.toString();
  }

  static String time(Duration d) {
    long ms = d.toMillis();
    if (ms < 60_000) {
      return "%.1f s".formatted(ms / 1000.0);
    }
    return "%d min %02d s".formatted(ms / 60_000, (ms / 1000) % 60);
  }

  static String indent(String text) {
    if (text.isEmpty()) {
      return "";
    }
    var s = new StringBuilder();
    text.lines().forEach(l -> s.append(l.isBlank() ? "" : "   " + l).append('\n'));
    return s.toString();
  }

  static String shorten(String text, int width) {
    return text.length() <= width ? text : text.substring(0, width - 3) + "...";
  }

  static List<String> wrap(String text, int width) {
    var lines = new ArrayList<String>();
    var line = new StringBuilder();
    for (String word : text.split("\\s+")) {
      if (!line.isEmpty() && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (!line.isEmpty()) {
        line.append(' ');
      }
      line.append(word);
    }
    if (!line.isEmpty()) {
      lines.add(line.toString());
    }
    return lines;
  }
}
