package dev.tessera.cli.why;

import static dev.tessera.cli.Fixtures.allocated;
import static dev.tessera.cli.Fixtures.claim;
import static dev.tessera.cli.Fixtures.counters;
import static dev.tessera.cli.Fixtures.gpu;
import static dev.tessera.cli.Fixtures.pending;
import static dev.tessera.cli.Fixtures.placement;
import static dev.tessera.cli.Fixtures.shared;
import static dev.tessera.cli.Fixtures.slice;
import static dev.tessera.cli.Fixtures.snapshot;
import static dev.tessera.cli.Fixtures.tainted;
import static dev.tessera.cli.Fixtures.wholeGpu;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.cel.DeviceSelectors;
import dev.tessera.cel.Quantity;
import dev.tessera.cli.core.ClaimRef;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WhyTest {
  private static final ClaimRef HOLDER = new ClaimRef("default", "holder");

  private static List<Reason> reasons(
      List<ResourceSlice> slices, List<ResourceClaim> others, ResourceClaim claim) {
    var claims = new ArrayList<>(others);
    claims.add(claim);
    WhyReport report =
        new Why(snapshot(slices, claims, Map.of()), new DeviceSelectors()).explain(claim);
    assertThat(report).isInstanceOf(WhyReport.Pending.class);
    return ((WhyReport.Pending) report).nodes().getFirst().requests().getFirst().reasons();
  }

  @Test
  void aNodeWithoutADeviceOfTheClassSaysSo() {
    var slices = List.of(counters("n1", 0, 2, 80), slice("n1", List.of(placement(0, 0))));

    assertThat(reasons(slices, List.of(), pending("c", "gpu.tessera.dev")))
        .containsExactly(new Reason.NoDeviceOfClass("gpu.tessera.dev", 1));
  }

  @Test
  void aFalseSelectorShowsTheValueItTested() {
    // Scenario 6: 200 GiB of memory on 80 GiB GPUs.
    String expression =
        "device.capacity[\"gpu.tessera.dev\"].memory.compareTo(quantity(\"200Gi\")) >= 0";
    var slices = List.of(slice("n1", List.of(gpu(0, 80))));

    assertThat(reasons(slices, List.of(), pending("c", "gpu.tessera.dev", expression)))
        .containsExactly(new Reason.SelectorFalse("gpu-0", 1, expression, List.of("memory=80Gi")));
  }

  @Test
  void aMatchingDeviceAClaimHoldsIsTakenByIt() {
    var slices = List.of(slice("n1", List.of(gpu(0, 80))));
    var holder = allocated("holder", "n1", "gpu-0", "pod-a", Map.of());

    assertThat(reasons(slices, List.of(holder), pending("c", "gpu.tessera.dev")))
        .containsExactly(new Reason.Taken("gpu-0", List.of(HOLDER)));
  }

  @Test
  void aTaintTheRequestDoesNotTolerateKeepsItOff() {
    var slices =
        List.of(slice("n1", List.of(tainted(gpu(0, 80), "gpu.tessera.dev/xid", "NoSchedule"))));

    assertThat(reasons(slices, List.of(), pending("c", "gpu.tessera.dev")))
        .containsExactly(new Reason.Tainted("gpu-0", List.of("gpu.tessera.dev/xid:NoSchedule")));
  }

  @Test
  void placementsOfAGpuHeldWholeHaveTheirCountersExhausted() {
    var slices =
        List.of(
            counters("n1", 0, 2, 80),
            slice("n1", List.of(wholeGpu(0, 2, 80), placement(0, 0), placement(0, 1))));
    var holder = allocated("holder", "n1", "gpu-0", "pod-a", Map.of());
    var claim =
        pending(
            "c",
            "mig.tessera.dev",
            "device.attributes[\"gpu.tessera.dev\"].profile == \"1g.10gb\"");

    assertThat(reasons(slices, List.of(holder), claim))
        .containsExactly(
            new Reason.CountersExhausted(
                "gpu-0-mig-1g.10gb-0",
                "gpu-0-counters",
                "memory-slice-0",
                Quantity.of(1),
                Quantity.of(0),
                List.of(HOLDER)),
            new Reason.CountersExhausted(
                "gpu-0-mig-1g.10gb-1",
                "gpu-0-counters",
                "memory-slice-1",
                Quantity.of(1),
                Quantity.of(0),
                List.of(HOLDER)));
  }

  @Test
  void allPlacementsHeldAreTakenAndTheWholeGpuIsOutOfCounters() {
    var slices =
        List.of(
            counters("n1", 0, 2, 80),
            slice("n1", List.of(wholeGpu(0, 2, 80), placement(0, 0), placement(0, 1))));
    var a = allocated("a", "n1", "gpu-0-mig-1g.10gb-0", "pod-a", Map.of());
    var b = allocated("b", "n1", "gpu-0-mig-1g.10gb-1", "pod-b", Map.of());

    List<Reason> mig = reasons(slices, List.of(a, b), pending("c", "mig.tessera.dev"));
    List<Reason> whole = reasons(slices, List.of(a, b), pending("c", "gpu.tessera.dev"));

    assertThat(mig)
        .containsExactly(
            new Reason.Taken("gpu-0-mig-1g.10gb-0", List.of(new ClaimRef("default", "a"))),
            new Reason.Taken("gpu-0-mig-1g.10gb-1", List.of(new ClaimRef("default", "b"))));
    assertThat(whole)
        .singleElement()
        .isInstanceOfSatisfying(
            Reason.CountersExhausted.class,
            c -> assertThat(c.by()).contains(new ClaimRef("default", "a")));
  }

  @Test
  void aSharedGpuSaysHowMuchCapacityIsLeft() {
    var slices = List.of(slice("n1", List.of(shared(0, 79))));
    var a = allocated("a", "n1", "gpu-0", "pod-a", Map.of("memory", "32Gi"));
    var b = allocated("b", "n1", "gpu-0", "pod-b", Map.of("memory", "32Gi"));

    var fits =
        reasons(slices, List.of(a, b), claim("c", "shared.tessera.dev", Map.of("memory", "15Gi")));
    var tooBig =
        reasons(slices, List.of(a, b), claim("c", "shared.tessera.dev", Map.of("memory", "20Gi")));

    assertThat(fits).containsExactly(new Reason.Fits("gpu-0", "memory 15Gi left"));
    assertThat(tooBig)
        .containsExactly(
            new Reason.CapacityShort(
                "gpu-0",
                "memory",
                Quantity.parse("20Gi"),
                Quantity.parse("15Gi"),
                List.of(new ClaimRef("default", "a"), new ClaimRef("default", "b"))));
  }

  @Test
  void aMistypedAttributeCannotBeDecidedAndNamesTheNearest() {
    var slices = List.of(slice("n1", List.of(gpu(0, 80))));
    var claim =
        pending(
            "c",
            "gpu.tessera.dev",
            "device.attributes[\"gpu.tessera.dev\"].prodcutName == \"NVIDIA H100 80GB HBM3\"");

    assertThat(reasons(slices, List.of(), claim))
        .singleElement()
        .isInstanceOfSatisfying(
            Reason.CannotDecide.class,
            c ->
                assertThat(c.why())
                    .startsWith("selector #1 fails to evaluate")
                    .contains("did you mean \"productName\"?"));
  }

  @Test
  void constraintsAcrossDevicesAreNotModeled() {
    var slices = List.of(slice("n1", List.of(gpu(0, 80), gpu(1, 80))));
    var claim =
        new ResourceClaimBuilder(pending("c", "gpu.tessera.dev"))
            .editSpec()
            .editDevices()
            .addNewConstraint()
            .withMatchAttribute("gpu.tessera.dev/productName")
            .endConstraint()
            .endDevices()
            .endSpec()
            .build();

    var report =
        new Why(snapshot(slices, List.of(claim), Map.of()), new DeviceSelectors()).explain(claim);

    assertThat(((WhyReport.Pending) report).notModeled())
        .singleElement()
        .asString()
        .startsWith("constraints across devices");
    assertThat(WhyText.render(report)).contains("cannot decide: constraints across devices");
  }

  @Test
  void anAllocatedClaimSaysWhatItGot() {
    var slices = List.of(slice("n1", List.of(shared(0, 79))));
    var a = allocated("a", "n1", "gpu-0", "pod-a", Map.of("memory", "16Gi"));

    var report = new Why(snapshot(slices, List.of(a), Map.of()), new DeviceSelectors()).explain(a);

    assertThat(WhyText.render(report))
        .isEqualTo(
            """
            claim default/a is allocated:
              gpu: n1/gpu-0 (consumed memory=16Gi)
              reserved for pods: pod-a
            """);
  }

  @Test
  void theTextGroupsDevicesWithTheSameReason() {
    String expression = "device.attributes[\"gpu.tessera.dev\"].profile == \"3g.40gb\"";
    var slices =
        List.of(
            counters("n1", 0, 2, 80),
            slice("n1", List.of(wholeGpu(0, 2, 80), placement(0, 0), placement(0, 1))));
    var claim = pending("c", "mig.tessera.dev", expression);

    var report =
        new Why(snapshot(slices, List.of(claim), Map.of()), new DeviceSelectors()).explain(claim);

    assertThat(WhyText.render(report))
        .isEqualTo(
            """
            claim default/c is not allocated.
            node n1:
              request gpu (class mig.tessera.dev, 1 device(s)): 0 fit
                selector #1 is false (profile="1g.10gb"): %s on gpu-0-mig-1g.10gb-0, gpu-0-mig-1g.10gb-1
            no node can serve every request now.
            """
                .formatted(expression));
  }
}
