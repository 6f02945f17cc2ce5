package dev.tessera.plugin.bench;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The dynamic MIG and MPS prepare benchmarks at test size, so that they cannot rot between the runs
 * that take figures: each starts the plugin's jar as its own process on a simulated node and throws
 * when a prepare or unprepare answers an error. Their figures mean nothing at this size.
 */
class PrepareBenchmarksSmokeIT {
  private static final String JAR =
      Path.of("target/tessera-kubelet-plugin.jar").toAbsolutePath().toString();

  @Test
  void dynamicMigCyclesMakeAndDestroyTheirDevices() throws Exception {
    MigPrepareBenchmark.main(new String[] {JAR, "16", "4", "none"});
  }

  @Test
  void mpsCyclesStartAndStopTheirDaemons() throws Exception {
    MpsPrepareBenchmark.main(new String[] {JAR, "16", "4", "config"});
  }
}
