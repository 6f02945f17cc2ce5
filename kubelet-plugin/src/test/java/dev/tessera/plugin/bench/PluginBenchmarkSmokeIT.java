package dev.tessera.plugin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code hack/bench}'s benchmark at test size, so that it cannot rot between the runs that take
 * figures: the plugin's jar as its own process, a few full prepare/unprepare cycles over the Unix
 * sockets, every answer checked, the GpuNode still reporting 8 GPUs, and every row of the table
 * printed. Its figures mean nothing at this size and are not checked.
 */
class PluginBenchmarkSmokeIT {

  @Test
  void aShortRunPreparesEveryClaimAndPrintsEveryFigure() throws Exception {
    var table = new ByteArrayOutputStream();

    PluginBenchmark.run(
        Path.of("target/tessera-kubelet-plugin.jar").toAbsolutePath(),
        40,
        10,
        "",
        new PrintStream(table, true, StandardCharsets.UTF_8));

    assertThat(table.toString(StandardCharsets.UTF_8))
        .contains(
            "| start to registration socket |",
            "| first prepare (cold) |",
            "| prepare p50 / p90 / p99 |",
            "| prepare+unprepare cycles/s |",
            "| RSS after 50 cycles |",
            "| SIGTERM to exit |");
  }
}
