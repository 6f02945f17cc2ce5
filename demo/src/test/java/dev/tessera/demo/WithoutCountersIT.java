package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler benchmark's comparison shape: mig-dynamic's devices, no counters anywhere. */
class WithoutCountersIT {
  @Test
  void keepsEveryDeviceAndDropsEveryCounter(@TempDir Path work) throws Exception {
    List<ResourceSlice> published =
        SchedulerScaleBenchmark.pool(
            "node-a", "uid-a", SchedulerScaleBenchmark.inventory(work), Offering.MIG_DYNAMIC);
    assertThat(published)
        .anyMatch(
            s ->
                s.getSpec().getSharedCounters() != null
                    && !s.getSpec().getSharedCounters().isEmpty());

    List<ResourceSlice> plain = WithoutCounters.of(published);

    assertThat(names(plain)).containsExactlyInAnyOrderElementsOf(names(published));
    assertThat(plain)
        .allSatisfy(
            s -> {
              assertThat(s.getSpec().getSharedCounters()).isNullOrEmpty();
              assertThat(s.getSpec().getDevices())
                  .allSatisfy(d -> assertThat(d.getConsumesCounters()).isNullOrEmpty());
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(plain.size());
            });
  }

  private static List<String> names(List<ResourceSlice> slices) {
    return slices.stream()
        .filter(s -> s.getSpec().getDevices() != null)
        .flatMap(s -> s.getSpec().getDevices().stream())
        .map(Device::getName)
        .toList();
  }
}
