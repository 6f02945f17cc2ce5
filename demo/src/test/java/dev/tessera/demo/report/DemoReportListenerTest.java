package dev.tessera.demo.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The demo report made from a real JUnit Platform run of fake scenario tests: each scenario once,
 * in the catalog's order although they ran otherwise, with what its tests printed and their own
 * results; set-up output and other tests' output only where something failed; the report file
 * written, and {@link ReportCheck} reading it back.
 */
class DemoReportListenerTest {
  private static final ScenarioCatalog CATALOG =
      new ScenarioCatalog(
          List.of(
              entry("01-first", "the first thing"),
              entry("02-second", "the second thing, in two tests"),
              entry("03-third", "the third thing"),
              entry("04-fourth", "a scenario this run has no test for")));

  private static ScenarioCatalog.Entry entry(String name, String purpose) {
    var yaml = new LinkedHashMap<String, String>();
    yaml.put("scenario.yaml", "kind: " + name + "\n");
    yaml.put("other.yaml", "kind: Other\n");
    yaml.put("step.yaml", "kind: Step\n");
    return new ScenarioCatalog.Entry(name, purpose, yaml);
  }

  /** Runs in the method order given, not by scenario: 03 first, then 01, and a test of none. */
  static class FirstAndThird {
    @BeforeAll
    static void setUp() {
      System.out.println("set-up chatter of FirstAndThird");
    }

    @Test
    @Scenario("03-third")
    void a() {
      System.out.println("--- pod-c saw: GPU 2");
    }

    @Test
    @Scenario("01-first")
    void b() {
      System.out.println("--- pod-a saw: GPU 0");
      System.err.println("a warning on stderr");
      System.out.println("--- applied demo/scenarios/01-first/step.yaml");
    }

    @Test
    void c() {
      System.out.println("output of a test that shows no scenario");
    }
  }

  /** One scenario in two tests, one failing. */
  @Scenario("02-second")
  static class Second {
    @BeforeAll
    static void setUp() {
      System.out.println("the plugin's log, from Second's set-up");
    }

    @Test
    void one() {
      System.out.println("--- pod-b saw: GPU 1");
    }

    @Test
    void two() {
      System.out.println("--- pod-b2 saw: nothing");
      assertThat(List.of()).as("the GPUs pod-b2 saw").hasSize(1);
    }
  }

  @TempDir Path work;

  private record Run(String printed, String file) {}

  private Run run(Class<?>... classes) throws Exception {
    Path file = work.resolve("target/demo-report.txt");
    var ticks = new AtomicLong();
    var listener =
        new DemoReportListener(
            file, CATALOG, () -> ticks.addAndGet(1_500_000_000L)); // 1.5 s a tick
    var request = LauncherDiscoveryRequestBuilder.request();
    for (Class<?> c : classes) {
      request.selectors(selectClass(c));
    }
    request.configurationParameter(
        "junit.jupiter.testmethod.order.default", "org.junit.jupiter.api.MethodOrderer$MethodName");
    var printed = new java.io.ByteArrayOutputStream();
    var stdout = System.out;
    System.setOut(new java.io.PrintStream(printed, true, "UTF-8"));
    try {
      LauncherFactory.create().execute(request.build(), listener);
    } finally {
      System.setOut(stdout);
    }
    return new Run(printed.toString("UTF-8"), Files.readString(file));
  }

  @Test
  void eachScenarioOnceInTheCatalogsOrderWithWhatItsTestsPrintedAndTheirResults() throws Exception {
    Run run = run(FirstAndThird.class, Second.class);
    System.out.println(run.printed());

    String report = run.file();
    assertThat(run.printed()).startsWith(report);
    assertThat(positions(report, "== 01-first ", "== 02-second ", "== 03-third ", "== summary"))
        .isSorted();
    assertThat(report)
        .containsOnlyOnce("== 01-first ")
        .containsOnlyOnce("== 02-second ")
        .containsOnlyOnce("== 03-third ")
        .doesNotContain("== 04-fourth ")
        .contains("   the first thing\n")
        .contains("-- the YAML applied: demo/scenarios/01-first/scenario.yaml\n   kind: 01-first\n")
        // A scenario's other files where its test applied them, not where another test did.
        .containsOnlyOnce("-- the YAML applied: demo/scenarios/01-first/step.yaml\n   kind: Step\n")
        .doesNotContain("other.yaml")
        .contains("   --- pod-a saw: GPU 0\n   a warning on stderr\n")
        .contains("   --- pod-c saw: GPU 2\n")
        .contains("   (shown by FirstAndThird.b)")
        .contains("result: PASS 01-first (1.5 s)\n")
        .contains("result: PASS 03-third (")
        // The class is the scenario: both tests' output, and the failure with the set-up's.
        .contains("   (shown by Second.one, Second.two)")
        .contains("   --- pod-b saw: GPU 1\n")
        .contains("   --- pod-b2 saw: nothing\n")
        .contains(
            "-- why it failed:\n   Second.two: java.lang.AssertionError: [the GPUs pod-b2 saw]")
        .contains("[the GPUs pod-b2 saw]")
        .contains("   what Second printed:\n   the plugin's log, from Second's set-up\n")
        .contains("result: FAIL 02-second (")
        // Quiet where nothing failed: no set-up chatter, no other test's output.
        .doesNotContain("set-up chatter of FirstAndThird")
        .doesNotContain("output of a test that shows no scenario")
        .containsPattern("(?m)^  01-first +PASS +1\\.5 s +the first thing$")
        .containsPattern("(?m)^  02-second +FAIL ")
        .containsPattern("(?m)^  04-fourth +NOT RUN +a scenario this run has no test for$")
        .contains("other tests (not scenarios): 1 passed, 0 failed");
    // Everything printed is kept beside the report.
    assertThat(Files.readString(work.resolve("target/demo-output.log")))
        .contains("set-up chatter of FirstAndThird", "output of a test that shows no scenario");

    assertThat(ReportCheck.faults(report, CATALOG.names()))
        .containsExactlyInAnyOrder(
            "02-second is FAIL",
            "the summary says 02-second is FAIL",
            "04-fourth is missing",
            "the summary says 04-fourth is NOT RUN");
    assertThat(ReportCheck.faults(report, CATALOG.names().subList(0, 3)))
        .as("a scenario the report does not know of")
        .contains(
            "the summary lists [01-first, 02-second, 03-third, 04-fourth], not [01-first, 02-second, 03-third]");
  }

  /** Shown twice by two classes. */
  static class SecondAgain {
    @Test
    @Scenario("02-second")
    void again() {}

    @Test
    @Scenario("07-unknown")
    void unknown() {}
  }

  @Test
  void aScenarioShownTwiceOrUnknownIsAProblemTheCheckFails() throws Exception {
    String report = run(Second.class, SecondAgain.class).file();
    assertThat(report)
        .containsOnlyOnce("== 02-second ")
        .contains("problem: 02-second is shown twice (again by SecondAgain.again)")
        .contains("problem: 07-unknown is no directory of demo/scenarios");
    assertThat(ReportCheck.faults(report, CATALOG.names()))
        .anyMatch(f -> f.startsWith("problem: 02-second is shown twice"));
  }

  @Test
  void idleWithoutTheProperty() throws Exception {
    var listener = new DemoReportListener(null, CATALOG, System::nanoTime);
    var stdout = System.out;
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(FirstAndThird.class))
                .build(),
            listener);
    assertThat(System.out).isSameAs(stdout);
    assertThat(work.resolve("target")).doesNotExist();
  }

  private static List<Integer> positions(String text, String... parts) {
    var positions = new ArrayList<Integer>();
    for (String p : parts) {
      assertThat(text).contains(p);
      positions.add(text.indexOf(p));
    }
    return positions;
  }
}
