package dev.tessera.demo.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * The demo's reporter: a JUnit Platform listener (service-loaded, META-INF/services) that is idle
 * unless {@code -Dtessera.demo.report=FILE} asks for it (hack/test-e2e does). While a run lasts it
 * takes what tests print to System.out and System.err, and prints instead a {@link DemoReport}:
 * each scenario once, in the catalog's order, with what its test printed and the test's own result
 * — then writes the report to FILE and everything the tests printed to FILE's sibling {@code
 * demo-output.log}. A class's set-up output (Tessera's install, the plugin's log) is shown only
 * when a test of it fails.
 */
public final class DemoReportListener implements TestExecutionListener {
  /** The system property naming the report file; unset, the listener does nothing. */
  public static final String REPORT_PROPERTY = "tessera.demo.report";

  private final Path reportFile;
  private final ScenarioCatalog catalog;
  private final LongSupplier nanos;
  private PrintStream console;
  private PrintStream stdout;
  private PrintStream stderr;
  private DemoReport report;
  private TestPlan plan;
  private long planStarted;

  /** The scenario a test or class is the demo of (an owner finishing gives it its result). */
  private final Map<String, String> owners = new HashMap<>();

  /** The scenario of each test of a class that is one scenario's demo. */
  private final Map<String, String> members = new HashMap<>();

  private final Map<String, Run> runs = new HashMap<>();
  private final Deque<Run> active = new ArrayDeque<>();
  private final Map<String, Result> results = new LinkedHashMap<>();

  private final Capture capture = new Capture();
  private final StringBuilder everything = new StringBuilder();

  /** What the service loader makes: active when {@value #REPORT_PROPERTY} is set. */
  public DemoReportListener() {
    this(
        Optional.ofNullable(System.getProperty(REPORT_PROPERTY))
            .filter(p -> !p.isBlank())
            .map(Path::of)
            .orElse(null),
        null,
        System::nanoTime);
  }

  /**
   * A listener writing to {@code reportFile} (null: idle) for {@code catalog} (null: the
   * repository's at {@code tessera.repo.dir}, read when the run starts).
   */
  DemoReportListener(Path reportFile, ScenarioCatalog catalog, LongSupplier nanos) {
    this.reportFile = reportFile;
    this.catalog = catalog;
    this.nanos = nanos;
  }

  /** A running or finished test or container: what it printed, since when. */
  private static final class Run {
    final TestIdentifier id;
    final long started;
    final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    Run(TestIdentifier id, long started) {
      this.id = id;
      this.started = started;
    }

    String printed() {
      return printed.toString(StandardCharsets.UTF_8);
    }
  }

  /** A scenario's result so far (for a class: its tests'). */
  private static final class Result {
    final StringBuilder output = new StringBuilder();
    final StringBuilder failure = new StringBuilder();
    final StringBuilder tests = new StringBuilder();
    DemoReport.Status status = DemoReport.Status.PASS;
  }

  @Override
  public void testPlanExecutionStarted(TestPlan testPlan) {
    if (reportFile == null) {
      return;
    }
    plan = testPlan;
    planStarted = nanos.getAsLong();
    ScenarioCatalog scenarios =
        catalog != null
            ? catalog
            : ScenarioCatalog.read(
                Path.of(System.getProperty("tessera.repo.dir", ".")).toAbsolutePath().normalize());
    var planned = new java.util.LinkedHashSet<String>();
    var problems = new java.util.ArrayList<String>();
    testPlan.getRoots().forEach(root -> walk(root, planned, problems));
    for (String name : planned) {
      if (scenarios.get(name).isEmpty()) {
        problems.add(
            name + " is no directory of demo/scenarios (@Scenario of " + owner(name) + ")");
      }
    }
    stdout = System.out;
    stderr = System.err;
    console = stdout;
    report =
        new DemoReport(
            scenarios,
            planned,
            piece -> {
              console.print(piece);
              console.flush();
            });
    problems.forEach(report::problem);
    PrintStream captured = new PrintStream(capture, true, StandardCharsets.UTF_8);
    System.setOut(captured);
    System.setErr(captured);
  }

  private String owner(String scenario) {
    return owners.entrySet().stream()
        .filter(e -> e.getValue().equals(scenario))
        .map(e -> plan.getTestIdentifier(e.getKey()).getDisplayName())
        .findFirst()
        .orElse("?");
  }

  private void walk(
      TestIdentifier id, java.util.Set<String> planned, java.util.List<String> problems) {
    Optional<String> scenario = Optional.empty();
    boolean owner = false;
    var source = id.getSource().orElse(null);
    if (source instanceof ClassSource c && id.isContainer()) {
      scenario = ScenarioOrder.of(c.getJavaClass());
      owner = scenario.isPresent();
    } else if (source instanceof MethodSource m && id.isTest()) {
      scenario = ScenarioOrder.of(m.getJavaMethod(), m.getJavaClass());
      owner = scenario.isPresent() && m.getJavaMethod().isAnnotationPresent(Scenario.class);
      if (scenario.isPresent() && !owner) {
        members.put(id.getUniqueId(), scenario.get());
      }
    }
    if (owner) {
      if (!planned.add(scenario.get())) {
        problems.add(scenario.get() + " is shown twice (again by " + name(id) + ")");
      } else {
        owners.put(id.getUniqueId(), scenario.get());
      }
    }
    plan.getChildren(id).forEach(child -> walk(child, planned, problems));
  }

  // --- The run --------------------------------------------------------------------------------

  @Override
  public void executionStarted(TestIdentifier id) {
    if (report == null) {
      return;
    }
    var run = new Run(id, nanos.getAsLong());
    synchronized (capture) {
      runs.put(id.getUniqueId(), run);
      active.push(run);
    }
  }

  @Override
  public void executionSkipped(TestIdentifier id, String reason) {
    if (report == null) {
      return;
    }
    String scenario = owners.get(id.getUniqueId());
    if (scenario != null) {
      report.finished(
          scenario,
          new DemoReport.Outcome(
              DemoReport.Status.SKIPPED, Duration.ZERO, name(id), "", "skipped: " + reason));
    }
    if (id.isContainer()) {
      endScenariosUnder(id, DemoReport.Status.SKIPPED, "", "skipped: " + reason);
    }
  }

  @Override
  public void executionFinished(TestIdentifier id, TestExecutionResult result) {
    if (report == null) {
      return;
    }
    Run run;
    synchronized (capture) {
      run = runs.remove(id.getUniqueId());
      active.remove(run);
    }
    if (run == null) {
      return;
    }
    String printed = run.printed();
    if (!printed.isEmpty()) {
      everything.append("\n===== ").append(name(id)).append('\n').append(printed);
    }
    DemoReport.Status status = status(result);
    String failure = failure(result);
    String key = id.getUniqueId();
    String scenario = owners.getOrDefault(key, members.get(key));
    if (scenario != null) {
      Result r = results.computeIfAbsent(scenario, s -> new Result());
      if (id.isTest()) {
        if (!r.tests.isEmpty()) {
          r.output.append('\n');
        }
        r.tests.append(r.tests.isEmpty() ? "" : ", ").append(name(id));
        r.output.append(printed);
      }
      if (status != DemoReport.Status.PASS) {
        r.status = worse(r.status, status);
        r.failure.append(name(id)).append(": ").append(failure).append('\n');
        if (status == DemoReport.Status.FAIL) {
          r.failure.append(id.isTest() ? setUpOutput(id) : printedBy(id, printed));
        }
      }
      if (owners.containsKey(key)) {
        String test = id.isTest() ? name(id) : r.tests.toString();
        report.finished(
            scenario,
            new DemoReport.Outcome(
                r.status,
                Duration.ofNanos(nanos.getAsLong() - run.started),
                test,
                r.output.toString(),
                r.failure.toString()));
      }
    } else if (id.isTest()) {
      report.other(
          name(id),
          status,
          printed,
          status == DemoReport.Status.FAIL ? failure + setUpOutput(id) : "");
    }
    if (id.isContainer() && status != DemoReport.Status.PASS) {
      endScenariosUnder(id, status, printed, failure);
    }
  }

  /** A failed or skipped container's scenarios that had no result: they never ran. */
  private void endScenariosUnder(
      TestIdentifier container, DemoReport.Status status, String printed, String why) {
    for (TestIdentifier d : plan.getDescendants(container)) {
      String scenario = owners.get(d.getUniqueId());
      if (scenario != null && !report.hasResult(scenario)) {
        report.finished(
            scenario,
            new DemoReport.Outcome(
                status, Duration.ZERO, name(d), "", why + "\n" + printedBy(container, printed)));
      }
    }
  }

  private static String printedBy(TestIdentifier id, String printed) {
    return printed.isBlank() ? "" : "what " + name(id) + " printed:\n" + printed;
  }

  /** What the classes around a test printed so far (their set-up): shown when it fails. */
  private String setUpOutput(TestIdentifier id) {
    var s = new StringBuilder();
    for (var parent = plan.getParent(id);
        parent.isPresent();
        parent = plan.getParent(parent.get())) {
      Run run;
      synchronized (capture) {
        run = runs.get(parent.get().getUniqueId());
      }
      if (run != null && parent.get().getSource().isPresent()) {
        s.insert(0, printedBy(parent.get(), run.printed()));
      }
    }
    return s.toString();
  }

  @Override
  public void testPlanExecutionFinished(TestPlan testPlan) {
    if (report == null) {
      return;
    }
    System.setOut(stdout);
    System.setErr(stderr);
    String text = report.finish(Duration.ofNanos(nanos.getAsLong() - planStarted));
    try {
      Files.createDirectories(reportFile.toAbsolutePath().getParent());
      Files.writeString(reportFile, text);
      Files.writeString(reportFile.resolveSibling("demo-output.log"), everything);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    console.printf(
        "%nreport: %s; everything the tests printed: %s%n",
        reportFile, reportFile.resolveSibling("demo-output.log"));
    report = null;
  }

  // --- Helpers -------------------------------------------------------------------------------

  private static DemoReport.Status status(TestExecutionResult result) {
    return switch (result.getStatus()) {
      case SUCCESSFUL -> DemoReport.Status.PASS;
      case ABORTED -> DemoReport.Status.SKIPPED;
      case FAILED -> DemoReport.Status.FAIL;
    };
  }

  private static DemoReport.Status worse(DemoReport.Status a, DemoReport.Status b) {
    return a == DemoReport.Status.FAIL || b == DemoReport.Status.FAIL ? DemoReport.Status.FAIL : b;
  }

  /** The failure's message and where in our code it happened (not the frameworks' frames). */
  private static String failure(TestExecutionResult result) {
    return result
        .getThrowable()
        .map(
            t -> {
              var trace = new StringWriter();
              t.printStackTrace(new PrintWriter(trace));
              var s = new StringBuilder();
              for (String line : trace.toString().lines().toList()) {
                boolean frame = line.stripLeading().startsWith("at ");
                if (!frame || line.contains("dev.tessera.")) {
                  s.append(line).append('\n');
                }
              }
              return s.toString();
            })
        .orElse("");
  }

  /** {@code Class.method} (or the class's simple name) of a test or container. */
  private static String name(TestIdentifier id) {
    return switch (id.getSource().orElse(null)) {
      case MethodSource m -> m.getJavaClass().getSimpleName() + "." + m.getMethodName();
      case ClassSource c -> c.getJavaClass().getSimpleName();
      case null, default -> id.getDisplayName();
    };
  }

  /** System.out and System.err while the listener runs: into the innermost running test's log. */
  private final class Capture extends OutputStream {
    private final ByteArrayOutputStream outside = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      target().write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      target().write(b, off, len);
    }

    private ByteArrayOutputStream target() {
      Run run = active.peek();
      return run == null ? outside : run.printed;
    }
  }
}
