package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cached slice's pool and generation: from its annotations, else from its spec when the slice is
 * whole, else (a slice written before the annotations, as metadata) the pool from its owner Node
 * and no generation.
 */
class SlicePoolTest {
  private static ResourceSlice metadata(Map<String, String> annotations, String ownerNode) {
    var meta = new ObjectMetaBuilder().withName("s").withAnnotations(annotations);
    if (ownerNode != null) {
      meta.addToOwnerReferences(
          new OwnerReferenceBuilder()
              .withKind("Node")
              .withName(ownerNode)
              .withController(true)
              .build());
    }
    return new ResourceSliceBuilder().withMetadata(meta.build()).build();
  }

  @Test
  void theAnnotationsSayThePoolAndItsGeneration() {
    var slice = metadata(Map.of(SlicePool.POOL, "node-a", SlicePool.GENERATION, "7"), "node-other");

    assertThat(SlicePool.name(slice)).isEqualTo("node-a");
    assertThat(SlicePool.generation(slice)).hasValue(7);
  }

  @Test
  void aWholeSliceWithoutAnnotationsSaysThemInItsSpec() {
    var slice =
        new ResourceSliceBuilder()
            .withNewMetadata()
            .withName("s")
            .endMetadata()
            .withNewSpec()
            .withDriver("gpu.tessera.dev")
            .withNewPool()
            .withName("node-b")
            .withGeneration(4L)
            .withResourceSliceCount(1L)
            .endPool()
            .endSpec()
            .build();

    assertThat(SlicePool.name(slice)).isEqualTo("node-b");
    assertThat(SlicePool.generation(slice)).hasValue(4);
  }

  @Test
  void theMetadataOfASliceWrittenBeforeTheAnnotationsSaysItsPoolByItsOwnerAndNoGeneration() {
    var slice = metadata(Map.of(), "node-c");

    assertThat(SlicePool.name(slice)).isEqualTo("node-c");
    assertThat(SlicePool.generation(slice)).isEmpty();
    assertThat(SlicePool.name(metadata(Map.of(), null))).isEmpty();
  }

  @Test
  void aGenerationAnnotationThatIsNoNumberIsNotTrusted() {
    var slice = metadata(Map.of(SlicePool.GENERATION, "seven"), "node-d");

    assertThat(SlicePool.generation(slice)).isEmpty();
  }
}
