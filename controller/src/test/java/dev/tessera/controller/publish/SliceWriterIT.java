package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.health.NodeHealth;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SimulatedInventories;
import dev.tessera.controller.render.SliceRenderer;
import dev.tessera.plugin.it.MockApiServer;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The slice writer against fabric8's CRUD mock API server: what is written is what the API server
 * holds, a conflict of a stale cache is read again and skipped when the slice already says what was
 * rendered, and a refusal stops the writes with the API server's reason, counted.
 */
class SliceWriterIT {
  private final MockApiServer api = new MockApiServer();
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final SliceWriter writer = new SliceWriter(api.client(), metrics);
  private final PoolReconciler reconciler = new PoolReconciler(new PoolSlices("gpu.tessera.dev"));
  private final SliceRenderer renderer = new SliceRenderer();

  @AfterEach
  void close() {
    api.close();
  }

  private List<ResourceSlice> held() {
    return api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  private List<SliceWrite> plan(Offering offering, List<ResourceSlice> existing) throws Exception {
    var inventory = SimulatedInventories.node("H100-SXM5-80GB", 2);
    return reconciler.reconcile(
        "node-a", "uid-a", renderer.render(inventory, offering, NodeHealth.ALL_HEALTHY), existing);
  }

  @Test
  void aPoolIsCreatedAndReplacedAsRendered() throws Exception {
    var first = plan(Offering.MIG_DYNAMIC, List.of());
    writer.write("node-a", first);
    assertThat(held())
        .extracting(s -> s.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(first.stream().map(SliceWrite::name).toList());
    var created = (SliceWrite.Create) first.get(first.size() - 1);
    var stored =
        held().stream()
            .filter(s -> s.getMetadata().getName().equals(created.name()))
            .findFirst()
            .orElseThrow();
    assertThat(stored.getSpec()).isEqualTo(created.slice().getSpec());
    assertThat(SliceContentHash.annotated(stored))
        .isEqualTo(SliceContentHash.annotated(created.slice()));
    assertThat(metrics.counter("tessera.controller.slice.writes", "operation", "create").count())
        .isEqualTo(first.size());

    // Another offering: a new generation, the old slices replaced or deleted.
    var second = plan(Offering.EXCLUSIVE, held());
    writer.write("node-a", second);
    assertThat(held()).hasSize(1);
    assertThat(held().get(0).getSpec().getPool().getGeneration()).isEqualTo(2);
    var replaced = (SliceWrite.Update) second.get(second.size() - 1);
    assertThat(held().get(0).getSpec().getDevices())
        .isNotEmpty()
        .isEqualTo(replaced.slice().getSpec().getDevices());
    assertThat(held().get(0).getSpec().getSharedCounters()).isNullOrEmpty();
    assertThat(plan(Offering.EXCLUSIVE, held())).isEmpty();
  }

  @Test
  void aRefusalCarriesTheApiServersCodeAndReason() throws Exception {
    var writes = plan(Offering.EXCLUSIVE, List.of());
    writer.write("node-a", writes);
    // The same create again, made from a cache that does not show the slice: a conflict, read
    // again, and found to say what was rendered already, so nothing is refused.
    writer.write("node-a", plan(Offering.EXCLUSIVE, List.of()));
    assertThat(
            metrics
                .counter("tessera.controller.slice.write.conflicts", "operation", "create")
                .count())
        .isEqualTo(1);
    assertThat(held()).hasSize(1);

    // A replace of a slice that is not there: refused (not a conflict), with the API server's word.
    var gone = ((SliceWrite.Create) plan(Offering.SHARED, List.of()).get(0)).slice();
    gone.getMetadata().setName("node-a-gone");
    gone.getMetadata().setResourceVersion("1");
    assertThatThrownBy(() -> writer.write("node-a", List.of(new SliceWrite.Update(gone))))
        .isInstanceOf(SliceWriter.Rejected.class)
        .hasMessageContaining("refused to update slice node-a-gone");
    assertThat(
            metrics
                .find("tessera.controller.slice.writes.rejected")
                .tag("operation", "update")
                .counter())
        .isNotNull()
        .satisfies(c -> assertThat(c.getId().getTag("reason")).isIn("NotFound", "404"));
  }
}
