package dev.tessera.plugin.prepare;

import static dev.tessera.plugin.Fixtures.DRIVER;
import static dev.tessera.plugin.Fixtures.NODE;
import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.gpuConfig;
import static dev.tessera.plugin.Fixtures.inventory;
import static dev.tessera.plugin.Fixtures.mps;
import static dev.tessera.plugin.Fixtures.result;
import static dev.tessera.plugin.Fixtures.timeSlicing;
import static dev.tessera.plugin.Fixtures.withOneGPlacements;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.config.OpaqueConfigDecoder;
import dev.tessera.api.config.Sharing;
import dev.tessera.api.config.SharingStrategy;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.claim.SharingSettings;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The planner's decisions for devices allocated with admin access, beside other claims' holds. */
class AdminAccessPlannerTest {
  private final ClaimPlanner planner =
      new ClaimPlanner(
          DRIVER,
          NODE,
          new ConfigResolver(DRIVER, new OpaqueConfigDecoder(), UnaryOperator.identity()));
  private final ClaimRef admin = new ClaimRef("monitoring", "watch", "uid-admin");
  private final ClaimRef user = new ClaimRef("default", "user", "uid-user");
  private final PreparedClaims empty = PreparedClaims.empty("boot");

  private static DeviceRequestAllocationResult adminResult(String request, String device) {
    return new DeviceRequestAllocationResultBuilder(result(request, device))
        .withAdminAccess(true)
        .build();
  }

  private static ResourceClaim adminClaim(List<DeviceRequestAllocationResult> results) {
    return claim("uid-admin", "watch", results, List.of());
  }

  /** A checkpoint where claim {@code uid} holds {@code device} as prepared with this sharing. */
  private static PreparedClaims holding(
      PreparedClaims checkpoint,
      String uid,
      String device,
      String uuid,
      String sharing,
      boolean adm) {
    var held =
        new PreparedDevice(
            List.of("gpu"),
            NODE,
            device,
            List.of("x"),
            uuid,
            SharingStrategy.ofConfigName(sharing).orElseThrow(),
            null,
            SharingSettings.NONE,
            adm);
    return checkpoint.with(
        uid, new ClaimEntry(ClaimState.PrepareCompleted, "ns", uid, List.of(held)));
  }

  @Test
  void anAdminDeviceIsPlannedAsItIsBesideAnExclusiveHolder() throws Exception {
    var held = holding(empty, "uid-user", "gpu-0", "GPU-00000000", "Exclusive", false);

    var planned =
        planner.plan(admin, adminClaim(List.of(adminResult("all", "gpu-0"))), inventory(2), held);

    assertThat(planned)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.adminAccess()).isTrue();
              assertThat(d.uuid()).isEqualTo("GPU-00000000");
              assertThat(d.config().sharing()).isEqualTo(new Sharing.Exclusive());
            });
  }

  @Test
  void anAdminHoldNeverBlocksALaterClaimOfAnyStrategy() throws Exception {
    var held = holding(empty, "uid-admin", "gpu-0", "GPU-00000000", "Exclusive", true);
    var exclusive = claim("uid-user", "user", List.of(result("gpu", "gpu-0")), List.of());
    var sliced =
        claim(
            "uid-user",
            "user",
            List.of(result("gpu", "gpu-0")),
            List.of(config("FromClaim", List.of(), timeSlicing("Long"))));
    var shared =
        claim(
            "uid-user",
            "user",
            List.of(result("gpu", "gpu-0")),
            List.of(config("FromClaim", List.of(), mps("GpuConfig", 50, "10Gi"))));

    for (ResourceClaim claim : List.of(exclusive, sliced, shared)) {
      assertThat(planner.plan(user, claim, inventory(2), held))
          .singleElement()
          .satisfies(d -> assertThat(d.adminAccess()).isFalse());
    }
  }

  @Test
  void anAdminDeviceIsPlannedBesideTimeSlicedAndMpsHolders() throws Exception {
    for (String sharing : List.of("TimeSlicing", "MPS")) {
      var held = holding(empty, "uid-user", "gpu-0", "GPU-00000000", sharing, false);
      assertThat(
              planner.plan(
                  admin, adminClaim(List.of(adminResult("all", "gpu-0"))), inventory(2), held))
          .singleElement()
          .satisfies(d -> assertThat(d.config().sharing()).isEqualTo(new Sharing.Exclusive()));
    }
  }

  @Test
  void twoAdminClaimsTakeTheSameDevice() throws Exception {
    var held = holding(empty, "uid-other-admin", "gpu-0", "GPU-00000000", "Exclusive", true);
    assertThat(
            planner.plan(
                admin, adminClaim(List.of(adminResult("all", "gpu-0"))), inventory(1), held))
        .hasSize(1);
  }

  @Test
  void aGpuInMigModeIsHandedOverWholeWithAdminAccess() throws Exception {
    var planned =
        planner.plan(admin, adminClaim(List.of(adminResult("all", "gpu-1"))), inventory(2), empty);
    assertThat(planned)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.migDevice()).isNull();
              assertThat(d.uuid()).isEqualTo("GPU-00000001");
            });
  }

  @Test
  void aStaticMigDeviceIsHandedOverBesideItsExclusiveHolder() throws Exception {
    var held = holding(empty, "uid-user", "gpu-1-mig-1g10gb-0", "MIG-0000001", "Exclusive", false);
    var planned =
        planner.plan(
            admin,
            adminClaim(List.of(adminResult("all", "gpu-1-mig-1g10gb-0"))),
            inventory(2),
            held);
    assertThat(planned)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.adminAccess()).isTrue();
              assertThat(d.uuid()).isEqualTo("MIG-0000001");
              assertThat(d.config().sharing()).isEqualTo(new Sharing.Exclusive());
            });
  }

  @Test
  void aDynamicMigPlacementThatDoesNotExistIsPlannedUnresolved() throws Exception {
    // gpu-0 is not in MIG mode: its 1g.10gb at slice 3 is a placement, not a device.
    var planned =
        planner.plan(
            admin,
            adminClaim(List.of(adminResult("all", "gpu-0-mig-1g10gb-3"))),
            withOneGPlacements(inventory(2)),
            empty);
    assertThat(planned)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.adminAccess()).isTrue();
              assertThat(d.migDevice()).isNull();
              assertThat(d.uuid()).isEqualTo("GPU-00000000");
            });
  }

  @Test
  void aConfigAskingForSharingIsRefusedNamingTheField() {
    for (var params : List.of(gpuConfig("MPS"), timeSlicing("Short"))) {
      var claim =
          claim(
              "uid-admin",
              "watch",
              List.of(adminResult("all", "gpu-0")),
              List.of(config("FromClaim", List.of("all"), params)));
      assertThatThrownBy(() -> planner.plan(admin, claim, inventory(1), empty))
          .isInstanceOf(PrepareException.class)
          .hasMessageContaining(
              "status.allocation.devices.config[0].opaque.parameters.sharing.strategy")
          .hasMessageContaining("request all has adminAccess");
    }
    var migMps =
        claim(
            "uid-admin",
            "watch",
            List.of(adminResult("all", "gpu-1-mig-1g10gb-0")),
            List.of(config("FromClass", List.of(), mps("MigDeviceConfig", 50, "1Gi"))));
    assertThatThrownBy(() -> planner.plan(admin, migMps, inventory(2), empty))
        .hasMessageContaining("sharing MPS");
  }

  @Test
  void anExclusiveConfigAndConfigsOfOtherRequestsAreFine() throws Exception {
    var claim =
        claim(
            "uid-admin",
            "watch",
            List.of(adminResult("all", "gpu-0"), result("mine", "gpu-2")),
            List.of(
                config("FromClaim", List.of("all"), gpuConfig("Exclusive")),
                config("FromClaim", List.of("mine"), gpuConfig("MPS"))));
    assertThat(planner.plan(admin, claim, inventory(3), empty))
        .extracting(d -> d.adminAccess() + " " + d.config().sharing().strategy())
        .containsExactly("true Exclusive", "false MPS");
  }

  @Test
  void consumedCapacityIsNotTurnedIntoMpsLimits() throws Exception {
    var share =
        new DeviceRequestAllocationResultBuilder(adminResult("all", "gpu-0"))
            .withShareID("00000000-0000-0000-0000-000000000001")
            .withConsumedCapacity(Map.of("memory", new Quantity("20Gi")))
            .build();
    assertThat(planner.plan(admin, adminClaim(List.of(share)), inventory(1), empty))
        .singleElement()
        .satisfies(d -> assertThat(d.config().sharing()).isEqualTo(new Sharing.Exclusive()));
  }
}
