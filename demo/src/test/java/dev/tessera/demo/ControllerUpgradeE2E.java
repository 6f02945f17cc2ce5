package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An upgrade of the controller: the new one finds a pool its predecessor wrote before slices said
 * their pool and generation in annotations (decision 45; it caches slices' metadata only). It reads
 * the generation from the slices, and writes the same pool again in place, at the same generation,
 * to carry the annotations: no new generation, nothing taken from consumers.
 */
class ControllerUpgradeE2E {
  private static final String POOL = "gpu.tessera.dev/pool";
  private static final String GENERATION = "gpu.tessera.dev/pool-generation";
  private static final Pattern READS =
      Pattern.compile("(?m)^tessera_controller_slice_generation_reads_total(?:\\{[^}]*})? (\\S+)$");
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera =
        TesseraOnNode.startAsProcesses(
            Clusters.require(), "H100-SXM5-80GB", 2, Offering.MIG_DYNAMIC);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  private static Map<String, Long> generationsByName() {
    return tessera.slices().stream()
        .collect(
            Collectors.toMap(
                s -> s.getMetadata().getName(), s -> s.getSpec().getPool().getGeneration()));
  }

  @Test
  void theNextControllerAnnotatesAnOlderPoolInPlaceAtItsGeneration() throws Exception {
    var before = generationsByName();
    assertThat(before).hasSizeGreaterThan(1);
    tessera.processes().controller().close();
    // As the controller before decision 45 wrote them: the content digest, no pool annotations.
    for (ResourceSlice slice : tessera.slices()) {
      tessera
          .client()
          .resource(slice)
          .patch(
              PatchContext.of(PatchType.JSON),
              """
              [{"op":"remove","path":"/metadata/annotations/gpu.tessera.dev~1pool-generation"},
               {"op":"remove","path":"/metadata/annotations/gpu.tessera.dev~1pool"}]""");
    }

    try (var next = tessera.processes().startAnotherController()) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  tessera.slices().stream()
                      .allMatch(s -> s.getMetadata().getAnnotations().containsKey(GENERATION)));

      assertThat(generationsByName()).as("the same slices, the same generation").isEqualTo(before);
      assertThat(tessera.slices())
          .allSatisfy(
              s ->
                  assertThat(s.getMetadata().getAnnotations())
                      .containsEntry(POOL, tessera.nodeName())
                      .containsEntry(
                          GENERATION, Long.toString(s.getSpec().getPool().getGeneration())));
      var reads = READS.matcher(next.metrics());
      assertThat(reads.find()).as("the reads counted").isTrue();
      assertThat(Double.parseDouble(reads.group(1))).isGreaterThanOrEqualTo(before.size());
      assertThat(Files.readString(next.log())).contains(" leading ");
    }
  }
}
