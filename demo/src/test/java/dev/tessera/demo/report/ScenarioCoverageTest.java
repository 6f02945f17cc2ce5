package dev.tessera.demo.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The E2E tier as JUnit discovers it with the orderers the failsafe configuration sets: every
 * directory under demo/scenarios is shown by exactly one test or class ({@link Scenario}), each has
 * its purpose in demo/README.md's table and a row in README.md's first one, and the order runs each
 * class's scenarios up by number with the classes by their first one. A new scenario without its
 * demo test fails here, in the unit tier, before any cluster runs.
 */
class ScenarioCoverageTest {
  private static final Path REPO =
      Path.of(System.getProperty("tessera.repo.dir", "..")).toAbsolutePath().normalize();

  /** Scenario names as the E2E tier would run them, each with the test (or class) showing it. */
  private static List<Map.Entry<String, String>> shownInRunOrder() {
    TestPlan plan =
        LauncherFactory.create()
            .discover(
                LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectPackage("dev.tessera.demo"))
                    .filters(includeClassNamePatterns(".*E2E"))
                    .configurationParameter(
                        "junit.jupiter.testclass.order.default",
                        ScenarioOrder.Classes.class.getName())
                    .configurationParameter(
                        "junit.jupiter.testmethod.order.default",
                        ScenarioOrder.Methods.class.getName())
                    .build());
    var shown = new ArrayList<Map.Entry<String, String>>();
    plan.getRoots().forEach(root -> walk(plan, root, shown));
    return shown;
  }

  private static void walk(
      TestPlan plan, TestIdentifier id, List<Map.Entry<String, String>> shown) {
    Optional<Map.Entry<String, String>> here =
        switch (id.getSource().orElse(null)) {
          case ClassSource c ->
              ScenarioOrder.of(c.getJavaClass())
                  .map(s -> Map.entry(s, c.getJavaClass().getSimpleName()));
          case MethodSource m when m.getJavaMethod().isAnnotationPresent(Scenario.class) ->
              Optional.of(
                  Map.entry(
                      m.getJavaMethod().getAnnotation(Scenario.class).value(),
                      m.getJavaClass().getSimpleName() + "." + m.getMethodName()));
          case null, default -> Optional.empty();
        };
    here.ifPresent(shown::add);
    plan.getChildren(id).forEach(child -> walk(plan, child, shown));
  }

  @Test
  void everyScenarioDirectoryIsShownByExactlyOneTest() throws Exception {
    List<String> directories = ScenarioCatalog.names(REPO.resolve("demo/scenarios"));
    var shown = shownInRunOrder();
    System.out.println("scenarios as the E2E tier runs them: " + shown);

    assertThat(shown.stream().map(Map.Entry::getKey).sorted().toList())
        .as("each directory of demo/scenarios, shown once by a @Scenario test or class")
        .isEqualTo(directories);
  }

  @Test
  void everyScenarioHasItsPurposeInTheReadmesTable() {
    ScenarioCatalog catalog = ScenarioCatalog.read(REPO);
    assertThat(catalog.scenarios())
        .isNotEmpty()
        .allSatisfy(
            e -> assertThat(e.purpose()).as("demo/README.md's row for " + e.name()).isNotBlank());
  }

  @Test
  void theReadmesFirstTableListsEveryScenario() throws Exception {
    String readme = Files.readString(REPO.resolve("README.md"));
    String demoTable =
        readme.substring(
            readme.indexOf("## What the demo shows"), readme.indexOf("## The two commands"));
    assertThat(ScenarioCatalog.names(REPO.resolve("demo/scenarios")))
        .allSatisfy(
            name ->
                assertThat(demoTable).as("README.md's demo table").contains("| `" + name + "` |"));
  }

  @Test
  void classesRunByTheirFirstScenarioAndEachClassesScenariosUpByNumber() {
    var shown = shownInRunOrder();
    // Within a class (the part of a name before the dot) the scenarios go up; the classes' first
    // scenarios go up too.
    var firsts = new ArrayList<String>();
    String lastClass = "";
    String last = "";
    for (var e : shown) {
      String owner = e.getValue().split("\\.")[0];
      if (!owner.equals(lastClass)) {
        firsts.add(e.getKey());
        lastClass = owner;
      } else {
        assertThat(e.getKey()).as("after " + last + " in " + owner).isGreaterThan(last);
      }
      last = e.getKey();
    }
    assertThat(firsts).isSorted().doesNotHaveDuplicates();
  }
}
