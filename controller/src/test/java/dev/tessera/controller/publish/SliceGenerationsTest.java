package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The cached metadata of a slice that does not say its generation is completed by reading the
 * slice, once per version of it; a slice that says it is taken as cached.
 */
class SliceGenerationsTest {
  private final Map<String, ResourceSlice> apiServer = new HashMap<>();
  private final List<String> reads = new ArrayList<>();
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final SliceGenerations generations =
      new SliceGenerations(
          name -> {
            reads.add(name);
            return apiServer.get(name);
          },
          metrics.counter("reads"));

  private static ResourceSlice metadata(String name, String version, Map<String, String> ann) {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(name)
        .withResourceVersion(version)
        .withAnnotations(ann)
        .endMetadata()
        .build();
  }

  private static ResourceSlice whole(String name, String version, long generation) {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(name)
        .withResourceVersion(version)
        .endMetadata()
        .withNewSpec()
        .withDriver("gpu.tessera.dev")
        .withNewPool()
        .withName("node-a")
        .withGeneration(generation)
        .withResourceSliceCount(1L)
        .endPool()
        .endSpec()
        .build();
  }

  @Test
  void aSliceThatSaysItsGenerationIsNotRead() {
    var cached = metadata("s", "1", Map.of(SlicePool.GENERATION, "3"));

    assertThat(generations.complete(cached)).isSameAs(cached);
    assertThat(reads).isEmpty();
  }

  @Test
  void aSliceThatDoesNotIsReadOncePerVersion() {
    apiServer.put("s", whole("s", "10", 5));
    var cached = metadata("s", "10", Map.of());

    var completed = generations.complete(cached);
    assertThat(SlicePool.generation(completed)).hasValue(5);
    assertThat(completed.getMetadata()).isSameAs(cached.getMetadata());
    assertThat(SlicePool.generation(generations.complete(cached))).hasValue(5);
    assertThat(reads).containsExactly("s");
    assertThat(metrics.counter("reads").count()).isEqualTo(1);

    // A new version (another writer changed it): read again.
    apiServer.put("s", whole("s", "11", 6));
    assertThat(SlicePool.generation(generations.complete(metadata("s", "11", Map.of()))))
        .hasValue(6);
    assertThat(reads).containsExactly("s", "s");
  }

  @Test
  void aSliceForgottenIsReadAgainAndOneGoneIsLeftOut() {
    apiServer.put("s", whole("s", "10", 5));
    var cached = metadata("s", "10", Map.of());
    generations.complete(cached);

    generations.forgetting().onDelete(cached, false);
    apiServer.remove("s");

    assertThat(generations.complete(cached)).isNull();
    assertThat(reads).containsExactly("s", "s");
  }

  @Test
  void aReadNewerThanTheCacheIsUsedAndKeptForTheVersionItRead() {
    apiServer.put("s", whole("s", "12", 6));
    var behind = metadata("s", "10", Map.of());

    assertThat(SlicePool.generation(generations.complete(behind))).hasValue(6);
    assertThat(SlicePool.generation(generations.complete(metadata("s", "12", Map.of()))))
        .hasValue(6);
    assertThat(reads).containsExactly("s");
  }
}
