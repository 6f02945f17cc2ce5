package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.DesiredSlice;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolSlicesTest {
  private final PoolSlices pool = new PoolSlices("gpu.tessera.dev");

  @Test
  void everySliceOfAGenerationNamesThePoolItsGenerationAndTheSliceCount() {
    var contents =
        List.<DesiredSlice>of(
            new DesiredSlice.Counters(
                List.of(new CounterSetBuilder().withName("gpu-0-counters").build())),
            new DesiredSlice.Devices(List.of(new DeviceBuilder().withName("gpu-0").build())));

    var slices = pool.slices("node-a", "uid-a", 3, contents);

    assertThat(slices).hasSize(2);
    assertThat(slices)
        .allSatisfy(
            s -> {
              assertThat(s.getSpec().getDriver()).isEqualTo("gpu.tessera.dev");
              assertThat(s.getSpec().getNodeName()).isEqualTo("node-a");
              assertThat(s.getSpec().getPool().getName()).isEqualTo("node-a");
              assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(3);
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2);
              // Said again in the metadata, which is all the controller caches of a slice.
              assertThat(s.getMetadata().getAnnotations())
                  .containsEntry(SlicePool.POOL, "node-a")
                  .containsEntry(SlicePool.GENERATION, "3");
              assertThat(SlicePool.name(metadataOf(s))).isEqualTo("node-a");
              assertThat(SlicePool.generation(metadataOf(s))).hasValue(3);
              assertThat(s.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(
                      o -> {
                        assertThat(o.getKind()).isEqualTo("Node");
                        assertThat(o.getUid()).isEqualTo("uid-a");
                        assertThat(o.getController()).isTrue();
                      });
            });
    assertThat(slices.get(0).getSpec().getSharedCounters()).hasSize(1);
    assertThat(slices.get(0).getSpec().getDevices()).isNullOrEmpty();
    assertThat(slices.get(1).getSpec().getDevices()).hasSize(1);
    assertThat(slices)
        .extracting(s -> s.getMetadata().getName())
        .containsExactly("node-a-gpu.tessera.dev-00000", "node-a-gpu.tessera.dev-00001");
  }

  /** The slice as the API server sends it to a metadata-only watch: no spec. */
  private static ResourceSlice metadataOf(ResourceSlice slice) {
    var metadata = new ResourceSlice();
    metadata.setMetadata(slice.getMetadata());
    return metadata;
  }
}
