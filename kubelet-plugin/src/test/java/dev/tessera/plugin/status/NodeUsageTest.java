package dev.tessera.plugin.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.health.DeviceHealth;
import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.health.TaintEffect;
import dev.tessera.plugin.Fixtures;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.claim.SharingSettings;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeUsageTest {
  private static final String NODE = "node-a";
  private static final NodeHealth HEALTHY = NodeHealth.ALL_HEALTHY;

  private static PreparedDevice device(String name, SharingStrategy sharing, Long pinned) {
    return new PreparedDevice(
        List.of("gpu"),
        NODE,
        name,
        List.of("cdi"),
        "UUID-" + name,
        sharing,
        null,
        new SharingSettings(null, null, pinned),
        false);
  }

  private static PreparedClaims claims(Map<String, ClaimEntry> entries) {
    return new PreparedClaims("boot", entries);
  }

  private static ClaimEntry entry(String name, PreparedDevice... devices) {
    return new ClaimEntry(ClaimState.PrepareCompleted, "team-a", name, List.of(devices));
  }

  @Test
  void anIdleNodeHasEveryGpuFreeAndNoHolders() {
    var usage = NodeUsage.of(NODE, Fixtures.inventory(2), HEALTHY, claims(Map.of()), Map.of());

    assertThat(usage.gpusTotal()).isEqualTo(2);
    assertThat(usage.gpusFree()).isEqualTo(2);
    assertThat(usage.devices()).isEmpty();
    assertThat(NodeUsage.quantity(usage.sharedMemoryFreeBytes())).isEqualTo("0Gi");
  }

  @Test
  void aHeldGpuOrAHeldMigDeviceOfItIsNotFreeAndNamesItsHolderAndPods() {
    var usage =
        NodeUsage.of(
            NODE,
            Fixtures.inventory(3),
            HEALTHY,
            claims(
                Map.of(
                    "uid-a", entry("a", device("gpu-0", SharingStrategy.EXCLUSIVE, null)),
                    "uid-b",
                        entry("b", device("gpu-1-mig-1g10gb-0", SharingStrategy.EXCLUSIVE, null)))),
            Map.of("uid-a", List.of("trainer")));

    assertThat(usage.gpusFree()).isEqualTo(1);
    assertThat(usage.devices())
        .extracting(HeldDevice::device)
        .containsExactly("gpu-0", "gpu-1-mig-1g10gb-0");
    assertThat(usage.devices().get(0).holders())
        .containsExactly(new Holder("team-a", "a", "uid-a", List.of("trainer")));
    assertThat(usage.devices().get(1).holders().get(0).pods()).isEmpty();
    assertThat(usage.devices().get(0).memoryFreeBytes()).isNull();
  }

  @Test
  void aSharedGpuListsAllItsHoldersAndTheMemoryTheirLimitsLeave() {
    var usage =
        NodeUsage.of(
            NODE,
            Fixtures.inventory(1),
            HEALTHY,
            claims(
                Map.of(
                    "uid-a", entry("a", device("gpu-0", SharingStrategy.MPS, 20L << 30)),
                    "uid-b", entry("b", device("gpu-0", SharingStrategy.MPS, 40L << 30)))),
            Map.of());

    assertThat(usage.gpusFree()).isZero();
    assertThat(usage.devices())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.sharing()).isEqualTo("MPS");
              assertThat(d.holders()).extracting(Holder::name).containsExactly("a", "b");
              assertThat(d.memoryFreeBytes()).isEqualTo(20L << 30);
            });
    assertThat(NodeUsage.quantity(usage.sharedMemoryFreeBytes())).isEqualTo("20Gi");
  }

  @Test
  void anUnhealthyGpuIsNotFreeAndAdminAccessHoldsNothing() {
    var xid =
        new DeviceProblem(
            "gpu.tessera.dev/xid", "79", TaintEffect.NO_SCHEDULE, "", Instant.EPOCH, null);
    var admin =
        new PreparedDevice(
            List.of("gpu"),
            NODE,
            "gpu-1",
            List.of(),
            "U",
            SharingStrategy.EXCLUSIVE,
            null,
            SharingSettings.NONE,
            true);
    var usage =
        NodeUsage.of(
            NODE,
            Fixtures.inventory(2),
            new NodeHealth(List.of(new DeviceHealth("gpu-0", List.of(xid)))),
            claims(Map.of("uid-admin", entry("admin", admin))),
            Map.of());

    assertThat(usage.gpusFree()).isEqualTo(1);
    assertThat(usage.devices()).isEmpty();
  }

  @Test
  void quantitiesReadAsAPersonWould() {
    assertThat(NodeUsage.quantity(80L << 30)).isEqualTo("80Gi");
    assertThat(NodeUsage.quantity((80L << 30) + (512L << 20))).isEqualTo("82432Mi");
  }
}
