package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The controller benchmark's count of code cache collections, read from a GC log (-Xlog:gc). */
class CodeCacheCollectionsTest {
  @TempDir Path dir;

  @Test
  void eachFullCollectionForTheCodeCacheIsCountedWithItsPause() throws Exception {
    // As a 500-node start logged them (the first line of each collection names no pause).
    Path log =
        write(
            "[4.623s] GC(3) Pause Young (Allocation Failure) 73M->22M(185M) 23.835ms",
            "[5.753s] GC(4) Pause Full (CodeCache GC Threshold)",
            "[5.824s] GC(4) Pause Full (CodeCache GC Threshold) 57M->22M(185M) 70.289ms",
            "[9.001s] GC(5) Pause Full (Metadata GC Threshold) 60M->20M(185M) 40.000ms",
            "[10.249s] GC(6) Pause Full (CodeCache GC Threshold)",
            "[10.462s] GC(6) Pause Full (CodeCache GC Threshold) 59M->22M(185M) 212.965ms");
    assertThat(ControllerScaleBenchmark.codeCacheCollections(log)).isEqualTo("2 (70 ms, 213 ms)");
  }

  @Test
  void aLogWithoutOneSaysNone() throws Exception {
    Path log = write("[1.434s] GC(0) Pause Young (Allocation Failure) 53M->11M(185M) 53.016ms");
    assertThat(ControllerScaleBenchmark.codeCacheCollections(log)).isEqualTo("0");
  }

  private Path write(String... lines) throws Exception {
    return Files.write(dir.resolve("gc.log"), java.util.List.of(lines));
  }
}
