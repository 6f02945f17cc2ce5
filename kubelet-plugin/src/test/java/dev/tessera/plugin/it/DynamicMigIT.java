package dev.tessera.plugin.it;

import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.MigDevice;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import dev.tessera.plugin.nvml.Nvml;
import dev.tessera.plugin.nvml.Placement;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Dynamic MIG through the kubelet's gRPC API on the simulator (real JNA binding): H100 x2, GPU 0
 * not in MIG mode (Hopper switches without a reset), GPU 1 in MIG mode with an admin's 1g.10gb at
 * slice 0. The MIG state is read back through NVML.
 */
class DynamicMigIT {
  // H100 1g.10gb is profile id 19; at slice s its GPU instance id is 7 + s.
  private static final String ONE_G_AT_3 = "gpu-0-mig-1g10gb-3";

  @RegisterExtension
  final SimulatedPlugin node =
      new SimulatedPlugin("H100-SXM5-80GB", 2, "--mig-enabled", "1", "--mig", "1:19@0");

  private final JsonMapper json = JsonMapper.builder().build();

  private ResourceClaim claimOf(String uid, String device) {
    return node.plugin().create(claim(uid, uid, List.of(result("mig", device)), List.of()));
  }

  private String prepare(ResourceClaim claim) {
    return node.plugin().kubelet().prepare(claim).get(claim.getMetadata().getUid()).getError();
  }

  private static String uid(ResourceClaim claim) {
    return claim.getMetadata().getUid();
  }

  private Nvml nvml() {
    return node.plugin().context().getBean(Nvml.class);
  }

  /** GPU {@code minor} as NVML reports it now. */
  private Gpu gpu(int minor) {
    return new GpuDiscovery(nvml()).discover().gpuByMinor(minor).orElseThrow();
  }

  private PreparedClaims checkpoint() {
    return new CheckpointStore(node.plugin().checkpointFile(), json).load("boot-1");
  }

  private Path capability(int gpu, int gi) {
    return node.root()
        .resolve("proc/driver/nvidia/capabilities/gpu" + gpu + "/mig/gi" + gi + "/access");
  }

  @Test
  void prepareCreatesTheInstanceAtItsPlacementAndUnprepareDestroysIt() throws Exception {
    var claim = claimOf("uid-dyn", ONE_G_AT_3);

    assertThat(prepare(claim)).isEmpty();

    Gpu gpu0 = gpu(0);
    assertThat(gpu0.migMode()).isEqualTo(MigMode.ENABLED);
    MigDevice made = gpu0.migDevices().getFirst();
    assertThat(gpu0.migDevices()).hasSize(1);
    assertThat(made.profile()).isEqualTo("1g.10gb");
    assertThat(made.placement()).isEqualTo(new MigPlacement(3, 1));
    assertThat(made.gpuInstanceId()).isEqualTo(10);
    assertThat(made.computeInstanceId()).isZero();

    // The spec brings the GPU and the capability nodes of the new GPU and compute instance.
    JsonNode device =
        json.readTree(Files.readString(node.plugin().specFile(uid(claim)))).get("devices").get(0);
    assertThat(device.findValuesAsString("path"))
        .containsExactly(
            "/dev/nvidia0", "/dev/nvidia-caps/nvidia-cap93", "/dev/nvidia-caps/nvidia-cap94");
    ClaimEntry entry = checkpoint().claims().get(uid(claim));
    assertThat(entry.devices().getFirst().uuid()).isEqualTo(made.uuid());
    assertThat(entry.createdMig())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.gpuUuid()).isEqualTo(gpu0.uuid());
              assertThat(c.gpuInstanceId()).isEqualTo(10);
              assertThat(c.computeInstanceId()).isZero();
              assertThat(c.placement()).isEqualTo(new MigPlacement(3, 1));
              assertThat(c.enabledMigMode()).isTrue();
            });

    assertThat(node.plugin().kubelet().unprepare(claim)).isEmpty();

    assertThat(gpu(0).migDevices()).isEmpty();
    assertThat(gpu(0).migMode()).isEqualTo(MigMode.DISABLED);
    assertThat(capability(0, 10)).doesNotExist();
    assertThat(checkpoint().claims()).isEmpty();
  }

  @Test
  void theLastOfTwoClaimsOnAGpuSwitchesMigModeOffThoughTheFirstSwitchedItOn() throws Exception {
    var first = claimOf("uid-first", ONE_G_AT_3);
    var second = claimOf("uid-second", "gpu-0-mig-1g10gb-5");
    assertThat(prepare(first)).isEmpty();
    assertThat(prepare(second)).isEmpty();
    assertThat(gpu(0).migDevices()).hasSize(2);

    // The claim that switched MIG mode on goes first; the GPU still has the second's device.
    assertThat(node.plugin().kubelet().unprepare(first)).isEmpty();
    assertThat(gpu(0).migMode()).isEqualTo(MigMode.ENABLED);
    assertThat(node.plugin().kubelet().unprepare(second)).isEmpty();

    assertThat(gpu(0).migDevices()).isEmpty();
    assertThat(gpu(0).migMode()).isEqualTo(MigMode.DISABLED);
    assertThat(checkpoint().claims()).isEmpty();
  }

  @Test
  void aComputeInstanceThatCannotBeCreatedLeavesNoGpuInstance() throws Exception {
    Files.writeString(
        node.root().resolve("etc/mock-nvml/faults"),
        "nvmlGpuInstanceCreateComputeInstance NVML_ERROR_INSUFFICIENT_RESOURCES 1\n");
    var claim = claimOf("uid-fault", ONE_G_AT_3);

    assertThat(prepare(claim))
        .contains("cannot create its compute instance")
        .contains("NVML_ERROR_INSUFFICIENT_RESOURCES");

    // MIG mode is back off, as before: no GPU instance can be left.
    assertThat(gpu(0).migMode()).isEqualTo(MigMode.DISABLED);
    assertThat(capability(0, 10)).doesNotExist();
    assertThat(node.plugin().specFile(uid(claim))).doesNotExist();
    assertThat(checkpoint().claims()).isEmpty();

    // The fault was a one-off: the kubelet's retry succeeds.
    assertThat(prepare(claim)).isEmpty();
    assertThat(gpu(0).migDevices()).hasSize(1);
  }

  @Test
  void anAdminsDeviceIsUsedAndLeftInPlace() throws Exception {
    MigDevice admins = gpu(1).migDevices().getFirst();
    var claim = claimOf("uid-admin", "gpu-1-mig-1g10gb-0");

    assertThat(prepare(claim)).isEmpty();
    assertThat(checkpoint().claims().get(uid(claim)).devices().getFirst().uuid())
        .isEqualTo(admins.uuid());
    assertThat(checkpoint().claims().get(uid(claim)).createdMig()).isEmpty();
    assertThat(node.plugin().kubelet().unprepare(claim)).isEmpty();

    assertThat(gpu(1).migDevices()).containsExactly(admins);
  }

  @Test
  void aPlacementOverlappingAnAdminsDeviceIsRefused() throws Exception {
    var claim = claimOf("uid-overlap", "gpu-1-mig-2g20gb-0");

    assertThat(prepare(claim))
        .contains("overlaps GPU instance 7")
        .contains("not created by Tessera");
    assertThat(gpu(1).migDevices()).hasSize(1);
  }

  @Test
  void aRestartKeepsTheDeviceOfACompletedClaimAndUnprepareStillDestroysIt() throws Exception {
    var claim = claimOf("uid-keep", ONE_G_AT_3);
    assertThat(prepare(claim)).isEmpty();
    node.plugin().stop();
    node.plugin().start();

    assertThat(gpu(0).migDevices()).extracting(MigDevice::gpuInstanceId).containsExactly(10);
    assertThat(node.plugin().kubelet().unprepare(claim)).isEmpty();
    assertThat(gpu(0).migDevices()).isEmpty();
  }

  @Test
  void aRestartDestroysTheHalfMadeDeviceOfAClaimThatDidNotComplete() throws Exception {
    // As if the plugin died between creating the GPU instance and its compute instance: the
    // intent is checkpointed (no ids yet), the GPU instance exists without a compute instance.
    Gpu gpu0 = gpu(0);
    var device = nvml().deviceByIndex(0);
    assertThat(nvml().setMigMode(device, true)).isZero();
    nvml().createGpuInstance(device, 19, new Placement(3, 1));
    node.plugin().stop();
    var intent =
        new CreatedMig(
            gpu0.uuid(), ONE_G_AT_3, 19, "1g.10gb", new MigPlacement(3, 1), null, null, null, true);
    new CheckpointStore(node.plugin().checkpointFile(), json)
        .save(
            PreparedClaims.empty("boot-1")
                .with(
                    "uid-half",
                    new ClaimEntry(
                        ClaimState.PrepareStarted, "default", "half", List.of(), List.of(intent))),
            Durability.DURABLE);

    node.plugin().start();

    // MIG mode is back off, as before: no GPU instance can be left.
    assertThat(gpu(0).migMode()).isEqualTo(MigMode.DISABLED);
    assertThat(capability(0, 10)).doesNotExist();
    assertThat(checkpoint().claims()).doesNotContainKey("uid-half");
    // The admin's device on GPU 1 is not the plugin's: untouched.
    assertThat(gpu(1).migDevices()).hasSize(1);
  }
}
