package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler benchmark's other comparison shape: mig-dynamic's pool split per GPU. */
class PoolPerGpuIT {
  @Test
  void keepsEveryDeviceAndCounterInOneCompletePoolPerGpu(@TempDir Path work) throws Exception {
    List<ResourceSlice> published =
        SchedulerScaleBenchmark.pool(
            "node-a", "uid-a", SchedulerScaleBenchmark.inventory(work), Offering.MIG_DYNAMIC);

    List<ResourceSlice> split = PoolPerGpu.of(published);

    assertThat(devices(split)).containsExactlyInAnyOrderElementsOf(devices(published));
    assertThat(counterSets(split)).containsExactlyInAnyOrderElementsOf(counterSets(published));
    assertThat(split.stream().map(s -> s.getMetadata().getName()).collect(Collectors.toSet()))
        .hasSize(split.size());
    Map<String, List<ResourceSlice>> pools =
        split.stream().collect(Collectors.groupingBy(s -> s.getSpec().getPool().getName()));
    assertThat(pools).hasSize(8);
    pools.forEach(
        (name, slices) -> {
          assertThat(name).startsWith("node-a-gpu-");
          assertThat(slices)
              .allSatisfy(
                  s ->
                      assertThat(s.getSpec().getPool().getResourceSliceCount())
                          .isEqualTo(slices.size()));
          var sets = new HashSet<String>();
          slices.stream()
              .flatMap(s -> nonNull(s.getSpec().getSharedCounters()).stream())
              .forEach(set -> sets.add(set.getName()));
          assertThat(sets).as(name + "'s counter sets").hasSize(1);
          assertThat(slices)
              .flatMap(s -> nonNull(s.getSpec().getDevices()))
              .isNotEmpty()
              .allSatisfy(
                  d ->
                      assertThat(d.getConsumesCounters())
                          .allSatisfy(c -> assertThat(sets).contains(c.getCounterSet())));
        });
  }

  private static <T> List<T> nonNull(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static List<Device> devices(List<ResourceSlice> slices) {
    return slices.stream().flatMap(s -> nonNull(s.getSpec().getDevices()).stream()).toList();
  }

  private static List<CounterSet> counterSets(List<ResourceSlice> slices) {
    return slices.stream().flatMap(s -> nonNull(s.getSpec().getSharedCounters()).stream()).toList();
  }
}
