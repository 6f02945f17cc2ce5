package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hack/test-e2e} and {@code hack/demo}'s part of it, in a repository of their own whose
 * cluster scripts and Maven are stand-ins: the E2E run asks for the demo report, the report is
 * checked (every scenario once, in order, all PASS) with the real {@code ReportCheck}, the cluster
 * goes down at the end — or, with {@code --keep}, Tessera is installed again and the cluster is
 * left up with how to reach and stop it printed.
 */
class TestE2eScriptTest {
  private static final Path TEST_CLASSES =
      Path.of(
              dev.tessera.demo.report.ReportCheck.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation()
                  .getPath())
          .toAbsolutePath();

  private static final String REPORT = "dev/tessera/demo/report";

  @TempDir Path work;
  private StandIns standIns;
  private Path repo;
  private Path report;

  @BeforeEach
  void aRepositoryWithStandIns() throws Exception {
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name")), "hack/test-e2e runs as root");
    standIns = new StandIns(work);
    repo = Files.createDirectories(work.resolve("repo"));
    Files.createDirectories(repo.resolve("hack/cluster"));
    Files.copy(HelmChart.REPO.resolve("hack/test-e2e"), repo.resolve("hack/test-e2e"));
    Files.copy(HelmChart.REPO.resolve("hack/demo"), repo.resolve("hack/demo"));
    // The JDK and build tools are there (and never installed by a test).
    Files.writeString(
        repo.resolve("hack/lib.sh"),
        "tessera_pick_jdk() { :; }\ntessera_need_build_tools() { :; }\n");
    for (String script : List.of("build", "up", "down", "install-tessera")) {
      Files.createSymbolicLink(
          repo.resolve("hack/cluster").resolve(script), standIns.add(script, ""));
    }
    // Maven writes the report the listener would have written: FAKE_REPORT's text.
    Files.createSymbolicLink(
        repo.resolve("mvnw"),
        standIns.add(
            "mvnw",
            """
            for a in "$@"; do
              case "$a" in -Dtessera.demo.report=*) f=${a#*=}; mkdir -p "$(dirname "$f")"; cp "$FAKE_REPORT" "$f" ;; esac
            done
            exit "${FAKE_MAVEN_RC:-0}"
            """));
    for (String s : List.of("01-a", "02-b")) {
      Path dir = Files.createDirectories(repo.resolve("demo/scenarios").resolve(s));
      Files.writeString(dir.resolve("scenario.yaml"), "kind: Pod\n");
    }
    // ReportCheck as the E2E build compiled it.
    Path classes = Files.createDirectories(repo.resolve("demo/target/test-classes/" + REPORT));
    try (var files = Files.list(TEST_CLASSES.resolve(REPORT))) {
      for (Path f : files.toList()) {
        Files.copy(f, classes.resolve(f.getFileName()));
      }
    }
    report = work.resolve("report.txt");
  }

  private StandIns.Result run(String script, String reportText, String... args) throws Exception {
    Files.writeString(report, reportText);
    var env = new HashMap<String, String>();
    env.put("TESSERA_E2E_LOCKED", "1"); // never the machine's real lock: a real E2E run may hold it
    env.put("FAKE_REPORT", report.toString());
    env.put("TESSERA_CLUSTER_DIR", work.resolve("cluster").toString());
    String java = Path.of(System.getProperty("java.home"), "bin").toString();
    return standIns.run(
        repo.resolve(script), java + ":" + System.getenv("PATH"), Map.copyOf(env), args);
  }

  private static String report(String... results) {
    var s = new StringBuilder();
    for (String r : results) {
      s.append("\n== ")
          .append(r.split(" ")[1])
          .append(" ==\nresult: ")
          .append(r)
          .append(" (1.0 s)\n");
    }
    s.append("\n== summary: 2 scenarios\n  scenario  result  time  what it shows\n");
    for (String r : results) {
      s.append("  ")
          .append(r.split(" ")[1])
          .append("   ")
          .append(r.split(" ")[0])
          .append("   1.0 s  x\n");
    }
    return s.toString();
  }

  @Test
  void asksForTheReportChecksItAndTearsTheClusterDown() throws Exception {
    var result = run("hack/test-e2e", report("PASS 01-a", "PASS 02-b"));
    assertThat(result.exitCode()).as(result.errors()).isZero();
    assertThat(standIns.calls().stream().map(StandIns.Call::tool))
        .containsExactly("build", "up", "mvnw", "down");
    assertThat(standIns.calls("mvnw").get(0))
        .contains(
            "-DskipE2E=false",
            "-Dtessera.demo.report=" + repo.resolve("demo/target/demo-report.txt"))
        .doesNotContain("-Dgroups");
    assertThat(result.output())
        .contains("demo report check: every scenario once, in order, all PASS")
        .contains("To keep it, with Tessera, for a look around");
  }

  @Test
  void aScenarioMissingFromTheReportFailsTheRunEvenWhenMavenPassed() throws Exception {
    var result = run("hack/test-e2e", report("PASS 02-b", "PASS 01-a"));
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.errors()).contains("demo report check: out of order: 02-b, 01-a");
    assertThat(standIns.calls("down")).hasSize(1);
  }

  @Test
  void testsChosenAreNotCheckedForEveryScenario() throws Exception {
    var result = run("hack/test-e2e", report("PASS 01-a"), "-Dit.test=SharingE2E");
    assertThat(result.exitCode()).as(result.errors()).isZero();
    assertThat(result.output()).contains("the demo report is not checked for every scenario");
  }

  @Test
  void keepInstallsTesseraAgainAndLeavesTheClusterUpSayingHowToReachAndStopIt() throws Exception {
    Files.createDirectories(repo.resolve("demo/target/images"));
    for (String image : List.of("kubelet-plugin", "controller")) {
      Files.writeString(repo.resolve("demo/target/images").resolve(image + ".oci.tar"), image);
    }
    var result = run("hack/test-e2e", report("PASS 01-a", "PASS 02-b"), "--demo", "--keep", "-q");
    assertThat(result.exitCode()).as(result.errors()).isZero();
    assertThat(standIns.calls().stream().map(StandIns.Call::tool))
        .containsExactly("build", "up", "mvnw", "install-tessera");
    assertThat(standIns.calls("mvnw").get(0))
        .contains("-Dgroups=scenario", "-q")
        .doesNotContain("--keep");
    assertThat(result.output())
        .contains(". " + work.resolve("cluster") + "/env")
        .contains("kubectl get gpunodes,resourceslices,resourceclaims -A")
        .contains("hack/cluster/install-tessera --uninstall && hack/cluster/down");
  }

  @Test
  void theDemoRunsTheScenarioTestsAndPassesKeepOn() throws Exception {
    var result = run("hack/demo", report("PASS 01-a", "PASS 02-b"), "--keep");
    assertThat(result.exitCode()).as(result.errors()).isZero();
    var maven = standIns.calls("mvnw");
    assertThat(maven).hasSize(2);
    assertThat(maven.get(0)).contains("install -DskipTests -DskipITs");
    assertThat(maven.get(1)).contains("-Dgroups=scenario", "-q");
    assertThat(standIns.calls("down")).isEmpty();
    assertThat(standIns.calls("install-tessera")).hasSize(1);
  }

  @Test
  void theScriptsAreShellcheckClean() throws Exception {
    ShellCheck.assertClean(
        HelmChart.REPO.resolve("hack/test-e2e"), HelmChart.REPO.resolve("hack/demo"));
  }
}
