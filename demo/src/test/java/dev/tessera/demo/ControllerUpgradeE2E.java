package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
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
    UnannotatedPools.strip(tessera);

    try (var next = tessera.processes().startAnotherController()) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  tessera.slices().stream()
                      .allMatch(
                          s ->
                              s.getMetadata()
                                  .getAnnotations()
                                  .containsKey(UnannotatedPools.GENERATION)));

      assertThat(generationsByName()).as("the same slices, the same generation").isEqualTo(before);
      assertThat(tessera.slices())
          .allSatisfy(
              s ->
                  assertThat(s.getMetadata().getAnnotations())
                      .containsEntry(UnannotatedPools.POOL, tessera.nodeName())
                      .containsEntry(
                          UnannotatedPools.GENERATION,
                          Long.toString(s.getSpec().getPool().getGeneration())));
      assertThat(UnannotatedPools.reads(next.metrics()))
          .as("the reads counted")
          .isGreaterThanOrEqualTo(before.size());
      assertThat(Files.readString(next.log())).contains(" leading ");
    }
  }
}
