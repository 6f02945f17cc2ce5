package dev.tessera.plugin.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.plugin.Fixtures;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SeriesPlannerTest {
  private final SeriesPlanner planner = new SeriesPlanner(Fixtures.NODE);

  private static PreparedDevice device(String name, String uuid, String pool) {
    return new PreparedDevice(
        List.of("gpu"), pool, name, List.of(), uuid, SharingStrategy.MPS, null);
  }

  private static ClaimEntry completed(String name, PreparedDevice... devices) {
    return new ClaimEntry(ClaimState.PrepareCompleted, "team-a", name, List.of(devices));
  }

  @Test
  void everyDeviceOfTheInventoryHasOneSeriesWithEmptyClaimLabels() {
    var plan =
        planner.plan(Fixtures.inventory(2), PreparedClaims.empty("boot"), uid -> Optional.empty());

    assertThat(plan)
        .containsExactly(
            new SampledDevice("gpu-0", "GPU-00000000", List.of()),
            new SampledDevice("gpu-1", "GPU-00000001", List.of()),
            new SampledDevice("gpu-1-mig-1g10gb-0", "MIG-0000001", List.of()));
    assertThat(plan.getFirst().holders()).containsExactly(Holder.NONE);
  }

  @Test
  void eachClaimHoldingADeviceIsOneSeriesWithItsPodsAndConsumedMemory() {
    var claims =
        PreparedClaims.empty("boot")
            .with("uid-a", completed("a", device("gpu-0", "GPU-00000000", Fixtures.NODE)))
            .with(
                "uid-b",
                completed(
                    "b",
                    device("gpu-0", "GPU-00000000", Fixtures.NODE),
                    device("gpu-0", "GPU-00000000", Fixtures.NODE))) // two shares: one holder
            .with(
                "uid-c",
                new ClaimEntry(
                    ClaimState.PrepareStarted,
                    "team-a",
                    "c",
                    List.of(device("gpu-1-mig-1g10gb-0", "MIG-0000001", Fixtures.NODE))));
    var details =
        Map.of(
            "uid-a",
            new ClaimDetails("uid-a", List.of("pod-2", "pod-1"), Map.of("gpu-0", 8L << 30)));

    var plan =
        planner.plan(Fixtures.inventory(2), claims, uid -> Optional.ofNullable(details.get(uid)));

    assertThat(plan.getFirst().holders())
        .containsExactly(
            new Holder("team-a", "a", "uid-a", List.of("pod-1", "pod-2"), 8L << 30),
            new Holder("team-a", "b", "uid-b", List.of(), null));
    // A claim still being prepared holds nothing yet.
    assertThat(plan.get(2).holders()).containsExactly(Holder.NONE);
  }

  @Test
  void aMigDeviceMadeForAClaimIsSampledAndAnotherPoolsDeviceIsNot() {
    var claims =
        PreparedClaims.empty("boot")
            .with(
                "uid-d",
                completed(
                    "d",
                    device("gpu-0-mig-3g40gb-4", "MIG-dynamic", Fixtures.NODE),
                    device("gpu-7", "GPU-elsewhere", "node-b")));

    var plan = planner.plan(Fixtures.inventory(1), claims, uid -> Optional.empty());

    assertThat(plan).extracting(SampledDevice::name).containsExactly("gpu-0", "gpu-0-mig-3g40gb-4");
    assertThat(plan.get(1).uuid()).isEqualTo("MIG-dynamic");
    assertThat(plan.get(1).holders()).extracting(Holder::uid).containsExactly("uid-d");
  }
}
