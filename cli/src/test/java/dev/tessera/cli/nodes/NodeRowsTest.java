package dev.tessera.cli.nodes;

import static dev.tessera.cli.Fixtures.allocated;
import static dev.tessera.cli.Fixtures.counters;
import static dev.tessera.cli.Fixtures.gpu;
import static dev.tessera.cli.Fixtures.placement;
import static dev.tessera.cli.Fixtures.shared;
import static dev.tessera.cli.Fixtures.slice;
import static dev.tessera.cli.Fixtures.snapshot;
import static dev.tessera.cli.Fixtures.tainted;
import static dev.tessera.cli.Fixtures.wholeGpu;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeRowsTest {
  @Test
  void aHeldDeviceShowsItsClaimAndPodAndAnIllOneItsHealthAndTaints() {
    var slices =
        List.of(
            slice(
                "n1",
                List.of(gpu(0, 80), tainted(gpu(1, 80), "gpu.tessera.dev/xid", "NoSchedule"))));
    var holder = allocated("train", "n1", "gpu-0", "train-pod", Map.of());
    var health = Map.of("n1", Map.of("gpu-1", List.of("gpu.tessera.dev/xid=79")));

    String table = TableText.render(NodeRows.of(snapshot(slices, List.of(holder), health), false));

    assertThat(table)
        .isEqualTo(
            """
            NODE   DEVICE   TYPE   PROFILE                 MEMORY      HEALTH                   \
            TAINTS                           CLAIMS          PODS
            n1     gpu-0    gpu    NVIDIA H100 80GB HBM3   80Gi/80Gi   ok                       \
            <none>                           default/train   train-pod
            n1     gpu-1    gpu    NVIDIA H100 80GB HBM3   0/80Gi      gpu.tessera.dev/xid=79   \
            gpu.tessera.dev/xid:NoSchedule   <none>          <none>
            """);
  }

  @Test
  void aSharedGpuShowsTheMemoryItsClaimsConsumed() {
    var slices = List.of(slice("n1", List.of(shared(0, 79))));
    var a = allocated("a", "n1", "gpu-0", "pod-a", Map.of("memory", "16Gi"));
    var b = allocated("b", "n1", "gpu-0", "pod-b", Map.of("memory", "16Gi"));

    DeviceRow row = NodeRows.of(snapshot(slices, List.of(a, b), Map.of()), false).getFirst();

    assertThat(row.type()).isEqualTo("shared");
    assertThat(row.memory()).isEqualTo("32Gi/79Gi");
    assertThat(row.claims()).containsExactly("default/a", "default/b");
    assertThat(row.pods()).containsExactly("pod-a", "pod-b");
  }

  @Test
  void migDynamicListsHeldPlacementsAndTheWholeGpuTheyFill() {
    var slices =
        List.of(
            counters("n1", 0, 2, 80),
            slice("n1", List.of(wholeGpu(0, 2, 80), placement(0, 0), placement(0, 1))));
    var a = allocated("a", "n1", "gpu-0-mig-1g.10gb-1", "pod-a", Map.of());

    List<DeviceRow> rows = NodeRows.of(snapshot(slices, List.of(a), Map.of()), false);
    List<DeviceRow> all = NodeRows.of(snapshot(slices, List.of(a), Map.of()), true);

    assertThat(rows).extracting(DeviceRow::device).containsExactly("gpu-0", "gpu-0-mig-1g.10gb-1");
    assertThat(rows.get(0).memory()).isEqualTo("10Gi/80Gi");
    assertThat(rows.get(1).type()).isEqualTo("mig");
    assertThat(rows.get(1).profile()).isEqualTo("1g.10gb");
    assertThat(all).hasSize(3);
  }
}
