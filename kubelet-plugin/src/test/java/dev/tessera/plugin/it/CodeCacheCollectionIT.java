package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin's first prepares after a start are not held up by a full collection of its heap that
 * the JVM's code cache sets off. As C1 compiles the start's and the first prepares' code, the JVM,
 * by default, collects the heap to unload code each time a share of the code cache has been filled
 * since the last unloading; with SerialGC that is a full collection, 36–57 ms, twice in the first
 * three seconds (docs/benchmarks.md, "A full collection for the code cache in the first seconds").
 * The shipped flags raise that share, so the plugin's code fits before it is reached.
 */
class CodeCacheCollectionIT {
  private static final int CLAIMS = 8;
  private static final int CYCLES = 300;

  @TempDir Path dir;

  @Test
  void theFirstPreparesAfterAStartRunWithoutACollectionForTheCodeCache() throws Exception {
    Path gcLog = dir.resolve("gc.log");
    Path root = SimulatedNode.layOut(dir.resolve("driver-root"), "H100-SXM5-80GB", CLAIMS);
    try (var api = new MockApiServer();
        var plugin =
            new KillablePlugin(dir, root, api.writeKubeconfig(dir), "-Xlog:gc:file=" + gcLog)) {
      List<ResourceClaim> claims = new ArrayList<>();
      for (int i = 0; i < CLAIMS; i++) {
        claims.add(
            api.client()
                .resource(claim("uid-" + i, "c" + i, List.of(result("gpu", "gpu-" + i)), List.of()))
                .create());
      }
      plugin.start();
      for (int cycle = 0; cycle < CYCLES; cycle++) {
        ResourceClaim claim = claims.get(cycle % CLAIMS);
        assertThat(plugin.prepareError(claim)).as("prepare of cycle %d", cycle).isEmpty();
        assertThat(plugin.kubelet().unprepare(claim)).as("unprepare of cycle %d", cycle).isEmpty();
      }
    }
    List<String> collections = Files.readAllLines(gcLog);
    assertThat(collections)
        .as("the heap was collected while the plugin started and prepared (the log is read)")
        .anyMatch(line -> line.contains("Pause Young"));
    assertThat(collections)
        .as("collections the code cache set off")
        .noneMatch(line -> line.contains("CodeCache GC"));
  }
}
