package dev.tessera.plugin.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.Sharing.TimeSliceInterval;
import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimEvent;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.sharing.SharingAction;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrepareStoryTest {
  private static PreparedDevice device(String name, SharingStrategy sharing) {
    return new PreparedDevice(
        List.of("gpu"), "node-a", name, List.of("cdi"), "GPU-" + name, sharing, null);
  }

  private static final CreatedMig MIG =
      new CreatedMig(
          "GPU-1",
          "gpu-0-mig-1g10gb-3",
          19,
          "1g.10gb",
          new MigPlacement(3, 1),
          7,
          0,
          "MIG-1",
          true);

  @Test
  void aPreparedClaimTellsWhatWasMadeAndSetUpThenItsDevices() {
    List<ClaimEvent> events =
        PrepareStory.prepared(
            "uid-a",
            List.of(device("gpu-0-mig-1g10gb-3", SharingStrategy.MPS)),
            List.of(MIG),
            List.of(new SharingAction.EnsureMps("MIG-1", "gpu-0-mig-1g10gb-3", false)),
            PreparedClaims.empty("boot"));

    assertThat(events)
        .extracting(ClaimEvent::reason)
        .containsExactly("MigDeviceCreated", "MpsDaemonStarted", "Prepared");
    assertThat(events.get(0).message())
        .isEqualTo("created MIG device gpu-0-mig-1g10gb-3 (profile 1g.10gb, MIG-1) on GPU GPU-1");
    assertThat(events.get(2).message())
        .isEqualTo("prepared gpu-0-mig-1g10gb-3 (GPU-gpu-0-mig-1g10gb-3, sharing MPS)");
  }

  @Test
  void aSecondMpsClaimJoinsAndATimeSliceIsSet() {
    var before =
        new PreparedClaims(
            "boot",
            Map.of(
                "uid-a",
                new ClaimEntry(
                    ClaimState.PrepareCompleted,
                    "ns",
                    "a",
                    List.of(device("gpu-0", SharingStrategy.MPS)))));
    List<ClaimEvent> events =
        PrepareStory.prepared(
            "uid-b",
            List.of(
                device("gpu-0", SharingStrategy.MPS),
                device("gpu-1", SharingStrategy.TIME_SLICING)),
            List.of(),
            List.of(
                new SharingAction.EnsureMps("GPU-0", "gpu-0", true),
                new SharingAction.SetTimeSlice("GPU-1", "gpu-1", TimeSliceInterval.Long)),
            before);

    assertThat(events)
        .extracting(ClaimEvent::reason)
        .containsExactly("MpsDaemonJoined", "TimeSliceSet", "Prepared");
    assertThat(events.get(1).message()).isEqualTo("set the time-slice of gpu-1 (GPU-1) to Long");
  }

  @Test
  void anUnprepareTellsTheMigDevicesDestroyedAndTheDevicesReleased() {
    var entry =
        new ClaimEntry(
            ClaimState.PrepareCompleted,
            "ns",
            "a",
            List.of(device("gpu-0-mig-1g10gb-3", SharingStrategy.EXCLUSIVE)),
            List.of(MIG));

    assertThat(PrepareStory.unprepared(entry))
        .extracting(ClaimEvent::reason, ClaimEvent::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "MigDeviceDestroyed",
                "destroyed MIG device gpu-0-mig-1g10gb-3 (profile 1g.10gb, MIG-1) on GPU GPU-1"),
            org.assertj.core.groups.Tuple.tuple("Unprepared", "unprepared gpu-0-mig-1g10gb-3"));
  }

  @Test
  void aFailedPrepareIsAWarningWithItsMessage() {
    var failed = new ClaimEvent.PrepareFailed("claim ns/a (u): GPU gone");
    assertThat(failed.warning()).isTrue();
    assertThat(failed.message()).isEqualTo("claim ns/a (u): GPU gone");
  }
}
