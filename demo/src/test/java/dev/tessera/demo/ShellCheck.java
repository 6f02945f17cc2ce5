package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * shellcheck over scripts, following what they source. Where shellcheck is not installed the test
 * is skipped, except on CI ({@code CI=true}), where hack/lib.sh installs it and its absence fails.
 */
final class ShellCheck {
  private ShellCheck() {}

  static void assertClean(Path... scripts) throws Exception {
    boolean installed =
        new ProcessBuilder("sh", "-c", "command -v shellcheck").start().waitFor() == 0;
    if (!installed) {
      if ("true".equals(System.getenv("CI"))) {
        fail("shellcheck is not installed (hack/lib.sh's tessera_need_build_tools installs it)");
      }
      Assumptions.abort("shellcheck is not installed: scripts not checked");
    }
    var command = new ArrayList<>(List.of("shellcheck", "-x", "-P", "SCRIPTDIR"));
    for (Path script : scripts) {
      command.add(script.toString());
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
  }
}
