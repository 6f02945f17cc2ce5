package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.DesiredSlice;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PoolReconcilerTest {
  private final PoolSlices pool = new PoolSlices("gpu.tessera.dev");
  private final PoolReconciler reconciler = new PoolReconciler(pool);

  private static Device gpu(int minor, String memory) {
    return new DeviceBuilder()
        .withName("gpu-" + minor)
        .withCapacity(
            Map.of("memory", new DeviceCapacityBuilder().withValue(new Quantity(memory)).build()))
        .build();
  }

  private static List<DesiredSlice> slicesOf(List<List<Device>> perSlice) {
    return perSlice.stream().map(d -> (DesiredSlice) new DesiredSlice.Devices(d)).toList();
  }

  /** What the API server holds after the writes (a tiny in-memory store). */
  private static List<ResourceSlice> apply(List<ResourceSlice> existing, List<SliceWrite> writes) {
    var store = new java.util.LinkedHashMap<String, ResourceSlice>();
    existing.forEach(s -> store.put(s.getMetadata().getName(), s));
    for (SliceWrite write : writes) {
      switch (write) {
        case SliceWrite.Create c -> store.put(c.slice().getMetadata().getName(), c.slice());
        case SliceWrite.Update u -> store.put(u.slice().getMetadata().getName(), u.slice());
        case SliceWrite.Delete d -> store.remove(d.name());
      }
    }
    return List.copyOf(store.values());
  }

  @Test
  void aNewPoolIsCreatedAtGenerationOne() {
    var writes =
        reconciler.reconcile("n", "uid", slicesOf(List.of(List.of(gpu(0, "80Gi")))), List.of());
    assertThat(writes).singleElement().isInstanceOf(SliceWrite.Create.class);
    assertThat(((SliceWrite.Create) writes.get(0)).slice().getSpec().getPool().getGeneration())
        .isEqualTo(1);
  }

  @Test
  void nothingIsWrittenWhenNothingChanged() {
    var desired = slicesOf(List.of(List.of(gpu(0, "80Gi")), List.of(gpu(1, "80Gi"))));
    var published = apply(List.of(), reconciler.reconcile("n", "uid", desired, List.of()));
    assertThat(reconciler.reconcile("n", "uid", desired, published)).isEmpty();
  }

  @Test
  void slicesWrittenBeforeTheySaidTheirPoolAreWrittenAgainInPlaceOnce() {
    var desired = slicesOf(List.of(List.of(gpu(0, "80Gi")), List.of(gpu(1, "80Gi"))));
    // As an older controller wrote them: generation 3, only the content digest annotated.
    var published = pool.slices("n", "uid", 3, desired);
    published.forEach(
        s -> {
          s.getMetadata()
              .setAnnotations(Map.of(SliceContentHash.ANNOTATION, SliceContentHash.annotated(s)));
          s.getMetadata().setResourceVersion("7");
        });

    var writes = reconciler.reconcile("n", "uid", desired, published);

    assertThat(writes)
        .hasSize(2)
        .allSatisfy(
            w -> {
              var slice = ((SliceWrite.Update) w).slice();
              assertThat(slice.getSpec().getPool().getGeneration()).isEqualTo(3);
              assertThat(slice.getMetadata().getResourceVersion()).isEqualTo("7");
              assertThat(slice.getMetadata().getAnnotations())
                  .containsEntry(SlicePool.GENERATION, "3")
                  .containsEntry(SlicePool.POOL, "n");
            });
    assertThat(reconciler.reconcile("n", "uid", desired, apply(published, writes))).isEmpty();
  }

  @Test
  void oneChangedSliceOfAnUnchangedCountIsUpdatedInPlace() {
    var before = slicesOf(List.of(List.of(gpu(0, "80Gi")), List.of(gpu(1, "80Gi"))));
    var published = apply(List.of(), reconciler.reconcile("n", "uid", before, List.of()));
    var after = slicesOf(List.of(List.of(gpu(0, "80Gi")), List.of(gpu(1, "40Gi"))));

    var writes = reconciler.reconcile("n", "uid", after, published);

    assertThat(writes).singleElement().isInstanceOf(SliceWrite.Update.class);
    var updated = ((SliceWrite.Update) writes.get(0)).slice();
    assertThat(updated.getSpec().getPool().getGeneration()).isEqualTo(1);
    assertThat(updated.getSpec().getDevices().get(0).getName()).isEqualTo("gpu-1");
  }

  @Test
  void aChangedSliceCountIsANewGenerationWithObsoleteSlicesDeletedFirst() {
    var three = slicesOf(IntStream.range(0, 3).mapToObj(i -> List.of(gpu(i, "80Gi"))).toList());
    var published = apply(List.of(), reconciler.reconcile("n", "uid", three, List.of()));
    var two = slicesOf(IntStream.range(0, 2).mapToObj(i -> List.of(gpu(i, "80Gi"))).toList());

    var writes = reconciler.reconcile("n", "uid", two, published);

    assertThat(writes.get(0)).isEqualTo(new SliceWrite.Delete("n-gpu.tessera.dev-00002"));
    var after = apply(published, writes);
    assertThat(after)
        .hasSize(2)
        .allSatisfy(
            s -> {
              assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(2);
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2);
            });
    assertThat(reconciler.reconcile("n", "uid", two, after)).isEmpty();
  }

  @Test
  void twoChangedSlicesAreANewGeneration() {
    var before = slicesOf(List.of(List.of(gpu(0, "80Gi")), List.of(gpu(1, "80Gi"))));
    var published = apply(List.of(), reconciler.reconcile("n", "uid", before, List.of()));
    var after = slicesOf(List.of(List.of(gpu(0, "40Gi")), List.of(gpu(1, "40Gi"))));

    var result = apply(published, reconciler.reconcile("n", "uid", after, published));

    assertThat(result).extracting(s -> s.getSpec().getPool().getGeneration()).containsOnly(2L);
  }

  @Test
  void aPoolWithNothingDesiredIsDeleted() {
    var published =
        apply(
            List.of(),
            reconciler.reconcile(
                "n", "uid", slicesOf(List.of(List.of(gpu(0, "80Gi")))), List.of()));
    var writes = reconciler.reconcile("n", "uid", List.of(), published);
    assertThat(apply(published, writes)).isEmpty();
  }

  @Test
  void anUpdateIsMadeAgainstTheResourceVersionReadAndReplacesTheWholeSlice() {
    var devices = slicesOf(List.of(List.of(gpu(0, "80Gi")), List.of(gpu(1, "80Gi"))));
    var published = apply(List.of(), reconciler.reconcile("n", "uid", devices, List.of()));
    published.get(0).getMetadata().setResourceVersion("41");
    published.get(1).getMetadata().setResourceVersion("42");
    // The offering switched: the first slice now holds counters, where it held devices.
    var counters =
        List.<DesiredSlice>of(
            new DesiredSlice.Counters(
                List.of(
                    new io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder()
                        .withName("gpu-0-counters")
                        .build())),
            new DesiredSlice.Devices(List.of(gpu(1, "80Gi"))));

    var writes = reconciler.reconcile("n", "uid", counters, published);

    assertThat(writes).singleElement().isInstanceOf(SliceWrite.Update.class);
    var update = ((SliceWrite.Update) writes.get(0)).slice();
    assertThat(update.getMetadata().getResourceVersion()).isEqualTo("41");
    assertThat(update.getSpec().getSharedCounters()).hasSize(1);
    assertThat(update.getSpec().getDevices()).isNullOrEmpty();
  }

  @Test
  void aNewGenerationUpdatesEachKeptSliceAgainstItsOwnVersion() {
    var three = slicesOf(IntStream.range(0, 3).mapToObj(i -> List.of(gpu(i, "80Gi"))).toList());
    var published = apply(List.of(), reconciler.reconcile("n", "uid", three, List.of()));
    for (int i = 0; i < 3; i++) {
      published.get(i).getMetadata().setResourceVersion("10" + i);
    }
    var two = slicesOf(IntStream.range(0, 2).mapToObj(i -> List.of(gpu(i, "40Gi"))).toList());

    var updates =
        reconciler.reconcile("n", "uid", two, published).stream()
            .filter(SliceWrite.Update.class::isInstance)
            .map(w -> ((SliceWrite.Update) w).slice().getMetadata().getResourceVersion())
            .toList();

    assertThat(updates).containsExactly("100", "101");
  }
}
