package dev.tessera.plugin.prepare;

import static dev.tessera.plugin.Fixtures.DRIVER;
import static dev.tessera.plugin.Fixtures.NODE;
import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.claimOnNode;
import static dev.tessera.plugin.Fixtures.config;
import static dev.tessera.plugin.Fixtures.gpuConfig;
import static dev.tessera.plugin.Fixtures.inventory;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.config.OpaqueConfigDecoder;
import dev.tessera.api.config.Sharing;
import dev.tessera.api.config.SharingStrategy;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ClaimPlannerTest {
  private final ClaimPlanner planner =
      new ClaimPlanner(
          DRIVER,
          NODE,
          new ConfigResolver(DRIVER, new OpaqueConfigDecoder(), UnaryOperator.identity()));
  private final ClaimRef ref = new ClaimRef("default", "c1", "uid-1");
  private final PreparedClaims empty = PreparedClaims.empty("boot");

  private List<PlannedDevice> plan(ResourceClaim claim) throws PrepareException {
    return planner.plan(ref, claim, inventory(4), empty);
  }

  @Test
  void aWholeGpuIsExclusiveByDefault() throws Exception {
    var planned = plan(claim("uid-1", "c1", List.of(result("gpu", "gpu-2")), List.of()));
    assertThat(planned)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.gpu().uuid()).isEqualTo("GPU-00000002");
              assertThat(d.migDevice()).isNull();
              assertThat(d.config().sharing()).isEqualTo(new Sharing.Exclusive());
            });
  }

  @Test
  void anExistingMigDeviceIsFoundByProfileAndPlacement() throws Exception {
    var planned =
        plan(claim("uid-1", "c1", List.of(result("mig", "gpu-1-mig-1g10gb-0")), List.of()));
    assertThat(planned)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.uuid()).isEqualTo("MIG-0000001");
              assertThat(d.gpu().minor()).isEqualTo(1);
            });
  }

  @Test
  void aReplacedClaimIsRefused() {
    var claim = claim("uid-2", "c1", List.of(result("gpu", "gpu-0")), List.of());
    assertThatThrownBy(() -> plan(claim)).hasMessageContaining("has UID uid-2, not uid-1");
  }

  @Test
  void anUnallocatedClaimIsRefused() {
    var claim = claim("uid-1", "c1", List.of(), List.of());
    claim.getStatus().setAllocation(null);
    assertThatThrownBy(() -> plan(claim)).hasMessageContaining("is not allocated");
  }

  @Test
  void aClaimAllocatedToAnotherNodeIsRefused() {
    var claim = claimOnNode("uid-1", "c1", "node-b", List.of(result("gpu", "gpu-0")), List.of());
    assertThatThrownBy(() -> plan(claim)).hasMessageContaining("allocated to another node");
  }

  @Test
  void devicesOfAnotherPoolAreRefused() {
    var elsewhere =
        new DeviceRequestAllocationResultBuilder(result("gpu", "gpu-0")).withPool("node-b").build();
    var claim = claim("uid-1", "c1", List.of(elsewhere), List.of());
    assertThatThrownBy(() -> plan(claim)).hasMessageContaining("pool node-b");
  }

  @Test
  void otherDriversResultsAreNotOurs() throws Exception {
    var nic =
        new DeviceRequestAllocationResultBuilder(result("nic", "nic-0"))
            .withDriver("net.example.com")
            .build();
    var planned = plan(claim("uid-1", "c1", List.of(result("gpu", "gpu-0"), nic), List.of()));
    assertThat(planned).extracting(d -> d.name().value()).containsExactly("gpu-0");
  }

  @Test
  void aGpuInMigModeIsNotUsedWhole() {
    var claim = claim("uid-1", "c1", List.of(result("gpu", "gpu-1")), List.of());
    assertThatThrownBy(() -> plan(claim)).hasMessageContaining("is in MIG mode");
  }

  @Test
  void unknownDevicesAreRefused() {
    assertThatThrownBy(() -> plan(claim("uid-1", "c1", List.of(result("gpu", "gpu-9")), List.of())))
        .hasMessageContaining("device gpu-9 is not on this node");
    assertThatThrownBy(
            () ->
                plan(claim("uid-1", "c1", List.of(result("gpu", "gpu-1-mig-3g40gb-4")), List.of())))
        .hasMessageContaining("device gpu-1-mig-3g40gb-4 is not on this node");
  }

  @Test
  void theClaimsConfigOverridesTheClassesForItsRequest() throws Exception {
    var claim =
        claim(
            "uid-1",
            "c1",
            List.of(result("a", "gpu-0"), result("b", "gpu-2")),
            List.of(
                config("FromClaim", List.of("a"), gpuConfig("MPS")),
                config("FromClass", List.of(), gpuConfig("TimeSlicing"))));
    var planned = plan(claim);
    assertThat(planned)
        .extracting(d -> d.config().sharing().strategy().configName())
        .containsExactly("MPS", "TimeSlicing");
  }

  @Test
  void aConfigForTheRequestAppliesToItsSubrequests() throws Exception {
    var claim =
        claim(
            "uid-1",
            "c1",
            List.of(result("gpu/big", "gpu-0")),
            List.of(config("FromClaim", List.of("gpu"), gpuConfig("TimeSlicing"))));
    assertThat(plan(claim))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.config().sharing().strategy().configName()).isEqualTo("TimeSlicing");
              assertThat(d.baseRequest()).isEqualTo("gpu");
            });
  }

  @Test
  void otherDriversConfigsAreIgnored() throws Exception {
    var foreign = config("FromClaim", List.of(), Map.of("anything", "goes"));
    foreign.getOpaque().setDriver("net.example.com");
    var planned = plan(claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of(foreign)));
    assertThat(planned.get(0).config().sharing()).isEqualTo(new Sharing.Exclusive());
  }

  @Test
  void anInvalidConfigFailsTheClaimNamingTheField() {
    var bad = config("FromClaim", List.of(), gpuConfig("Sometimes"));
    var claim = claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of(bad));
    assertThatThrownBy(() -> plan(claim))
        .hasMessageContaining(
            "status.allocation.devices.config[0].opaque.parameters.sharing.strategy")
        .hasMessageContaining("allowed: Exclusive, TimeSlicing, MPS");
  }

  @Test
  void aDeviceHeldByAnotherClaimIsRefusedUnlessBothShareItAlike() throws Exception {
    var held =
        new PreparedDevice(
            List.of("gpu"),
            NODE,
            "gpu-0",
            List.of("x"),
            "GPU-00000000",
            SharingStrategy.TIME_SLICING,
            null);
    var checkpoint =
        empty.with(
            "uid-0", new ClaimEntry(ClaimState.PrepareCompleted, "default", "c0", List.of(held)));
    var exclusive = claim("uid-1", "c1", List.of(result("gpu", "gpu-0")), List.of());
    assertThatThrownBy(() -> planner.plan(ref, exclusive, inventory(1), checkpoint))
        .hasMessageContaining(
            "already prepared for claim default/c0 (uid-0) with sharing TimeSlicing")
        .hasMessageContaining("asks for Exclusive");

    var mps =
        claim(
            "uid-1",
            "c1",
            List.of(result("gpu", "gpu-0")),
            List.of(config("FromClaim", List.of(), gpuConfig("MPS"))));
    assertThatThrownBy(() -> planner.plan(ref, mps, inventory(1), checkpoint))
        .hasMessageContaining("asks for MPS");

    var timeSliced =
        claim(
            "uid-1",
            "c1",
            List.of(result("gpu", "gpu-0")),
            List.of(config("FromClaim", List.of(), gpuConfig("TimeSlicing"))));
    assertThat(planner.plan(ref, timeSliced, inventory(1), checkpoint)).hasSize(1);
  }
}
