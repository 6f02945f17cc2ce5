package dev.tessera.plugin.sharing;

import static dev.tessera.plugin.Fixtures.NODE;
import static dev.tessera.plugin.Fixtures.inventory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.DeviceName;
import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.config.Sharing;
import dev.tessera.api.config.Sharing.TimeSliceInterval;
import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PlannedDevice;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.claim.SharingSettings;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SharingPlannerTest {
  private static final long GIB = 1L << 30;
  private final SharingPlanner planner = new SharingPlanner();
  private final ClaimRef b = new ClaimRef("default", "b", "uid-b");
  private final Gpu gpu0 = inventory(2).gpus().get(0);
  private final Gpu gpu1 = inventory(2).gpus().get(1);

  private static Sharing.Mps mps(Integer threads, Long pinned) {
    return new Sharing.Mps(
        threads == null ? OptionalInt.empty() : OptionalInt.of(threads),
        pinned == null ? OptionalLong.empty() : OptionalLong.of(pinned));
  }

  private PlannedDevice onGpu0(Sharing sharing) {
    return new PlannedDevice(
        "gpu",
        NODE,
        DeviceName.parse("gpu-0"),
        gpu0,
        null,
        new DeviceConfig.GpuConfig(sharing),
        null);
  }

  private PlannedDevice onMig(Sharing sharing) {
    return new PlannedDevice(
        "mig",
        NODE,
        DeviceName.parse("gpu-1-mig-1g10gb-0"),
        gpu1,
        gpu1.migDevices().get(0),
        new DeviceConfig.MigDeviceConfig(sharing),
        null);
  }

  /** A checkpoint where claim {@code name} holds {@code device} with the given sharing. */
  private static PreparedClaims holding(
      PreparedClaims checkpoint, String name, String device, String uuid, Sharing sharing) {
    var held =
        new PreparedDevice(
            List.of("gpu"),
            NODE,
            device,
            List.of("k8s.gpu.tessera.dev/claim=uid-" + name + "-" + device),
            uuid,
            sharing.strategy(),
            null,
            SharingSettings.of(sharing));
    return checkpoint.with(
        "uid-" + name, new ClaimEntry(ClaimState.PrepareCompleted, "default", name, List.of(held)));
  }

  private static PreparedClaims empty() {
    return PreparedClaims.empty("boot");
  }

  private static PreparedClaims gpu0HeldBy(String name, Sharing sharing) {
    return holding(empty(), name, "gpu-0", "GPU-00000000", sharing);
  }

  @Test
  void anExclusiveDeviceNeedsNoSetUp() throws Exception {
    assertThat(planner.prepare(b, List.of(onGpu0(new Sharing.Exclusive())), empty())).isEmpty();
  }

  @Test
  void theFirstTimeSlicedClaimSetsTheGpusTimeSlice() throws Exception {
    var actions =
        planner.prepare(
            b, List.of(onGpu0(new Sharing.TimeSlicing(TimeSliceInterval.Long))), empty());

    assertThat(actions)
        .containsExactly(
            new SharingAction.SetTimeSlice("GPU-00000000", "gpu-0", TimeSliceInterval.Long));
  }

  @Test
  void aClaimJoiningWithTheSameIntervalChangesNothing() throws Exception {
    var held = gpu0HeldBy("a", new Sharing.TimeSlicing(TimeSliceInterval.Long));

    assertThat(
            planner.prepare(
                b, List.of(onGpu0(new Sharing.TimeSlicing(TimeSliceInterval.Long))), held))
        .isEmpty();
  }

  @Test
  void mixedIntervalsOnOneGpuNameBothClaimsAndIntervals() {
    var held = gpu0HeldBy("a", new Sharing.TimeSlicing(TimeSliceInterval.Short));

    assertThatThrownBy(
            () ->
                planner.prepare(
                    b, List.of(onGpu0(new Sharing.TimeSlicing(TimeSliceInterval.Long))), held))
        .isInstanceOf(PrepareException.class)
        .hasMessage(
            "claim default/b (uid-b) asks for time-slice interval Long on GPU gpu-0 (GPU-00000000),"
                + " but claim default/a (uid-a) holds it with interval Short; a GPU has one"
                + " time-slice");
  }

  @Test
  void mpsOnAGpuTimeSlicedByAnotherClaimIsRefused() {
    var held = gpu0HeldBy("a", new Sharing.TimeSlicing(TimeSliceInterval.Default));

    assertThatThrownBy(() -> planner.prepare(b, List.of(onGpu0(mps(null, null))), held))
        .hasMessage(
            "claim default/b (uid-b) asks for MPS on gpu-0 (GPU-00000000), but claim default/a"
                + " (uid-a) holds it with TimeSlicing");
  }

  @Test
  void timeSlicingAGpuSharedThroughMpsIsRefused() {
    var held = gpu0HeldBy("a", mps(null, null));

    assertThatThrownBy(
            () ->
                planner.prepare(
                    b, List.of(onGpu0(new Sharing.TimeSlicing(TimeSliceInterval.Short))), held))
        .hasMessageContaining("asks for TimeSlicing on gpu-0")
        .hasMessageContaining("holds it with MPS");
  }

  @Test
  void everyMpsClaimMakesSureTheDaemonRuns() throws Exception {
    assertThat(planner.prepare(b, List.of(onGpu0(mps(50, 10 * GIB))), empty()))
        .containsExactly(new SharingAction.EnsureMps("GPU-00000000", "gpu-0", true));
    assertThat(
            planner.prepare(b, List.of(onGpu0(mps(50, 10 * GIB))), gpu0HeldBy("a", mps(50, null))))
        .containsExactly(new SharingAction.EnsureMps("GPU-00000000", "gpu-0", true));
  }

  @Test
  void aClaimWithTwoMpsDevicesIsRefusedNamingThem() {
    // A container would get two pipe directories and two limits for device ordinal 0.
    var twoDevices = List.of(onGpu0(mps(50, 10 * GIB)), onMig(mps(50, 5 * GIB)));

    assertThatThrownBy(() -> planner.prepare(b, twoDevices, empty()))
        .isInstanceOf(PrepareException.class)
        .hasMessageContaining("claim default/b (uid-b) asks for MPS on 2 devices")
        .hasMessageContaining("gpu-0, gpu-1-mig-1g10gb-0")
        .hasMessageContaining("at most one device through MPS");
  }

  @Test
  void oneMpsDeviceBesideATimeSlicedOneIsFine() throws Exception {
    var devices =
        List.of(
            onGpu0(mps(50, 10 * GIB)),
            onGpu0(mps(50, 10 * GIB)), // the same device for a second request
            onMig(new Sharing.Exclusive()));

    assertThat(planner.prepare(b, devices, empty()))
        .containsExactly(new SharingAction.EnsureMps("GPU-00000000", "gpu-0", true));
  }

  @Test
  void aMigDeviceGetsItsOwnDaemonAndKeepsItsGpusComputeMode() throws Exception {
    assertThat(planner.prepare(b, List.of(onMig(mps(null, 5 * GIB))), empty()))
        .containsExactly(new SharingAction.EnsureMps("MIG-0000001", "gpu-1-mig-1g10gb-0", false));
  }

  @Test
  void pinnedMemoryLimitsMustFitTheDevice() {
    var held = gpu0HeldBy("a", mps(null, 40 * GIB));

    assertThatThrownBy(() -> planner.prepare(b, List.of(onGpu0(mps(null, 50 * GIB))), held))
        .hasMessage(
            "claim default/b (uid-b): MPS pinned device memory limits on gpu-0 would add up to"
                + " 90Gi (this claim 50Gi, claim default/a (uid-a) 40Gi), more than its 80Gi");
  }

  @Test
  void aMigDevicesLimitIsItsOwnMemory() {
    assertThatThrownBy(() -> planner.prepare(b, List.of(onMig(mps(null, 11 * GIB))), empty()))
        .hasMessageContaining("would add up to 11Gi (this claim 11Gi), more than its 10Gi");
  }

  @Test
  void threadPercentagesMustNotExceedTheWholeGpu() {
    var held =
        holding(gpu0HeldBy("a", mps(60, null)), "c", "gpu-0", "GPU-00000000", mps(null, null));

    assertThatThrownBy(() -> planner.prepare(b, List.of(onGpu0(mps(50, null))), held))
        .hasMessage(
            "claim default/b (uid-b): MPS active thread percentages on gpu-0 would add up to 110%"
                + " (this claim 50%, claim default/a (uid-a) 60%), more than 100%");
  }

  @Test
  void limitsThatFitAreAccepted() throws Exception {
    var held = gpu0HeldBy("a", mps(50, 40 * GIB));

    assertThat(planner.prepare(b, List.of(onGpu0(mps(50, 40 * GIB))), held)).hasSize(1);
  }

  @Test
  void theLastTimeSlicedClaimRestoresTheDefault() {
    var both =
        holding(
            gpu0HeldBy("a", new Sharing.TimeSlicing(TimeSliceInterval.Long)),
            "b",
            "gpu-0",
            "GPU-00000000",
            new Sharing.TimeSlicing(TimeSliceInterval.Long));

    assertThat(planner.release("uid-b", both)).isEmpty();
    assertThat(planner.release("uid-b", both.without("uid-a")))
        .containsExactly(
            new SharingAction.SetTimeSlice("GPU-00000000", "gpu-0", TimeSliceInterval.Default));
  }

  @Test
  void theLastMpsClaimStopsTheDaemon() {
    var both =
        holding(gpu0HeldBy("a", mps(null, null)), "b", "gpu-0", "GPU-00000000", mps(null, null));

    assertThat(planner.release("uid-a", both)).isEmpty();
    assertThat(planner.release("uid-a", both.without("uid-b")))
        .containsExactly(new SharingAction.StopMps("GPU-00000000", "gpu-0", true));
  }

  @Test
  void releasingAnUnknownOrExclusiveClaimDoesNothing() {
    assertThat(planner.release("uid-x", gpu0HeldBy("a", mps(null, null)))).isEmpty();
    assertThat(planner.release("uid-a", gpu0HeldBy("a", new Sharing.Exclusive()))).isEmpty();
  }

  @Test
  void theDaemonsInUseAreOnePerDevice() {
    var held =
        holding(
            holding(gpu0HeldBy("a", mps(null, null)), "b", "gpu-0", "GPU-00000000", mps(10, null)),
            "c",
            "gpu-1-mig-1g10gb-0",
            "MIG-0000001",
            mps(null, null));

    assertThat(planner.daemonsInUse(held))
        .containsExactly(
            new SharingAction.EnsureMps("GPU-00000000", "gpu-0", true),
            new SharingAction.EnsureMps("MIG-0000001", "gpu-1-mig-1g10gb-0", false));
  }

  /** {@code checkpoint} with claim {@code name} holding gpu-0 with admin access. */
  private static PreparedClaims withAdmin(PreparedClaims checkpoint, String name) {
    var held =
        new PreparedDevice(
            List.of("all"),
            NODE,
            "gpu-0",
            List.of("k8s.gpu.tessera.dev/claim=uid-" + name + "-gpu-0"),
            "GPU-00000000",
            SharingStrategy.EXCLUSIVE,
            null,
            SharingSettings.NONE,
            true);
    return checkpoint.with(
        "uid-" + name,
        new ClaimEntry(ClaimState.PrepareCompleted, "monitoring", name, List.of(held)));
  }

  private PlannedDevice adminOnGpu0() {
    return new PlannedDevice(
        "all",
        NODE,
        DeviceName.parse("gpu-0"),
        gpu0,
        null,
        new DeviceConfig.GpuConfig(new Sharing.Exclusive()),
        null,
        true);
  }

  @Test
  void anAdminDeviceGetsNoSetUpWhateverOthersHold() throws Exception {
    assertThat(planner.prepare(b, List.of(adminOnGpu0()), empty())).isEmpty();
    assertThat(planner.prepare(b, List.of(adminOnGpu0()), gpu0HeldBy("a", mps(50, null))))
        .isEmpty();
    assertThat(
            planner.prepare(
                b,
                List.of(adminOnGpu0()),
                gpu0HeldBy("a", new Sharing.TimeSlicing(TimeSliceInterval.Long))))
        .isEmpty();
  }

  @Test
  void anAdminHolderDoesNotCountForTheFirstOrTheLastSharedClaim() throws Exception {
    var admin = withAdmin(empty(), "watch");
    // The first shared claim beside an admin still sets the device up...
    assertThat(planner.prepare(b, List.of(onGpu0(mps(null, null))), admin))
        .containsExactly(new SharingAction.EnsureMps("GPU-00000000", "gpu-0", true));
    assertThat(
            planner.prepare(
                b, List.of(onGpu0(new Sharing.TimeSlicing(TimeSliceInterval.Short))), admin))
        .containsExactly(
            new SharingAction.SetTimeSlice("GPU-00000000", "gpu-0", TimeSliceInterval.Short));
    // ...and the last one tears it down although the admin still sees the device.
    assertThat(planner.release("uid-a", withAdmin(gpu0HeldBy("a", mps(null, null)), "watch")))
        .containsExactly(new SharingAction.StopMps("GPU-00000000", "gpu-0", true));
    assertThat(
            planner.release(
                "uid-a",
                withAdmin(gpu0HeldBy("a", new Sharing.TimeSlicing(TimeSliceInterval.Long)), "w")))
        .containsExactly(
            new SharingAction.SetTimeSlice("GPU-00000000", "gpu-0", TimeSliceInterval.Default));
  }

  @Test
  void releasingAnAdminClaimUndoesNothingAndItUsesNoDaemon() {
    var both = withAdmin(gpu0HeldBy("a", mps(null, null)), "watch");
    assertThat(planner.release("uid-watch", both)).isEmpty();
    assertThat(planner.release("uid-watch", withAdmin(empty(), "watch"))).isEmpty();
    assertThat(planner.daemonsInUse(withAdmin(empty(), "watch"))).isEmpty();
    assertThat(planner.daemonsInUse(both))
        .containsExactly(new SharingAction.EnsureMps("GPU-00000000", "gpu-0", true));
  }
}
