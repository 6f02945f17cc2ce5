package dev.tessera.plugin.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.inventory.MigPlacement;
import dev.tessera.plugin.claim.ClaimEntry;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.CreatedMig;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.claim.SharingSettings;
import dev.tessera.plugin.fs.AtomicFiles.Durability;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

class CheckpointTest {
  @TempDir Path dir;

  private static final PreparedDevice GPU0 =
      new PreparedDevice(
          List.of("gpu"),
          "node-a",
          "gpu-0",
          List.of("k8s.gpu.tessera.dev/claim=u-gpu-0"),
          "GPU-0",
          SharingStrategy.EXCLUSIVE,
          null);

  @Test
  void claimsMoveThroughTwoPhasesAndLeave() {
    var started = new ClaimEntry(ClaimState.PrepareStarted, "ns", "c", List.of(GPU0));
    var cp = PreparedClaims.empty("boot-1").with("u", started);
    assertThat(cp.claims().get("u").state()).isEqualTo(ClaimState.PrepareStarted);
    cp = cp.with("u", started.withState(ClaimState.PrepareCompleted));
    assertThat(cp.claims().get("u").state()).isEqualTo(ClaimState.PrepareCompleted);
    assertThat(cp.without("u").claims()).isEmpty();
  }

  @Test
  void aRebootDemotesCompletedClaimsSoTheyArePreparedAgain() {
    var cp =
        PreparedClaims.empty("boot-1")
            .with("u", new ClaimEntry(ClaimState.PrepareCompleted, "ns", "c", List.of(GPU0)));
    assertThat(cp.inBoot("boot-1")).isSameAs(cp);
    var rebooted = cp.inBoot("boot-2");
    assertThat(rebooted.bootId()).isEqualTo("boot-2");
    assertThat(rebooted.claims().get("u").state()).isEqualTo(ClaimState.PrepareStarted);
    assertThat(rebooted.claims().get("u").devices()).containsExactly(GPU0);
  }

  @Test
  void theStoreRoundTripsAndReportsCorruption() throws Exception {
    var store =
        new CheckpointStore(dir.resolve("sub/checkpoint.json"), JsonMapper.builder().build());
    assertThat(store.load("boot-1").claims()).isEmpty();
    var cp =
        PreparedClaims.empty("boot-1")
            .with("u", new ClaimEntry(ClaimState.PrepareCompleted, "ns", "c", List.of(GPU0)));
    store.save(cp, Durability.DURABLE);
    assertThat(store.load("boot-1")).isEqualTo(cp);
    assertThat(reread(store)).isEqualTo(cp);
    assertThat(Files.readString(store.file()))
        .contains("\"apiVersion\":\"checkpoint.gpu.tessera.dev/v1\"");
    try (var files = Files.list(store.file().getParent())) {
      assertThat(files).containsExactly(store.file());
    }

    Files.writeString(store.file(), "{\"apiVersion\":");
    assertThatThrownBy(() -> store.load("boot-1")).hasMessageContaining("is corrupt");
    Files.writeString(store.file(), "{\"apiVersion\":\"v0\",\"bootId\":\"b\",\"claims\":{}}");
    assertThatThrownBy(() -> store.load("boot-1")).hasMessageContaining("has apiVersion v0");
  }

  @Test
  void anEntryWrittenBeforeAdminAccessReadsAsNoAdminAccessAndAnAdminOneRoundTrips()
      throws Exception {
    var store = new CheckpointStore(dir.resolve("checkpoint.json"), JsonMapper.builder().build());
    Files.writeString(
        store.file(),
        """
        {"apiVersion":"checkpoint.gpu.tessera.dev/v1","bootId":"boot-1","claims":{"u":{
          "state":"PrepareCompleted","namespace":"ns","name":"c","devices":[{
          "requestNames":["gpu"],"pool":"node-a","device":"gpu-0",
          "cdiDeviceIds":["k8s.gpu.tessera.dev/claim=u-gpu-0"],"uuid":"GPU-0",
          "sharing":"Exclusive"}]}}}""");
    assertThat(store.load("boot-1").claims().get("u").devices()).containsExactly(GPU0);

    var admin =
        new PreparedDevice(
            List.of("all"),
            "node-a",
            "gpu-0",
            List.of("k8s.gpu.tessera.dev/claim=a-gpu-0"),
            "GPU-0",
            SharingStrategy.EXCLUSIVE,
            null,
            null,
            true);
    var cp =
        PreparedClaims.empty("boot-1")
            .with("a", new ClaimEntry(ClaimState.PrepareCompleted, "ns", "a", List.of(admin)));
    store.save(cp, Durability.DURABLE);
    assertThat(reread(store)).isEqualTo(cp);
  }

  @Test
  void whatALoadTakesWithoutParsingIsWhatAParseOfTheSameBytesGives() throws Exception {
    var store = new CheckpointStore(dir.resolve("checkpoint.json"), JsonMapper.builder().build());
    var mps =
        new PreparedDevice(
            List.of("share"),
            "node-a",
            "gpu-1",
            List.of("k8s.gpu.tessera.dev/claim=m-gpu-1"),
            "GPU-1",
            SharingStrategy.MPS,
            "share-1",
            new SharingSettings(null, 25, 10L << 30),
            false);
    var mig =
        new CreatedMig(
            "GPU-2",
            "gpu-2-mig-1g.10gb-0",
            19,
            "1g.10gb",
            new MigPlacement(0, 1),
            null,
            null,
            null,
            true);
    var cp =
        PreparedClaims.empty("boot-1")
            .with("u", new ClaimEntry(ClaimState.PrepareCompleted, "ns", "c", List.of(GPU0)))
            .with("m", new ClaimEntry(ClaimState.PrepareCompleted, "ns", "m", List.of(mps)))
            .with(
                "g",
                new ClaimEntry(ClaimState.PrepareStarted, "ns", "g", List.of())
                    .withCreatedMig(List.of(mig, mig.made(3, 0, "MIG-3"))));
    store.save(cp, Durability.DURABLE);
    assertThat(store.load("boot-1")).isEqualTo(reread(store)).isEqualTo(cp);
    assertThat(store.load("boot-2")).isEqualTo(cp.inBoot("boot-2"));
  }

  @Test
  void aCheckpointAnotherProcessWroteSinceIsReadAsItIsNow() throws Exception {
    var store = new CheckpointStore(dir.resolve("checkpoint.json"), JsonMapper.builder().build());
    var other = new CheckpointStore(store.file(), JsonMapper.builder().build());
    var mine =
        PreparedClaims.empty("boot-1")
            .with("u", new ClaimEntry(ClaimState.PrepareCompleted, "ns", "c", List.of(GPU0)));
    store.save(mine, Durability.DURABLE);
    assertThat(store.load("boot-1")).isEqualTo(mine);
    other.save(mine.without("u"), Durability.WHOLE);
    assertThat(store.load("boot-1").claims()).isEmpty();
    Files.writeString(store.file(), "{\"apiVersion\":");
    assertThatThrownBy(() -> store.load("boot-1")).hasMessageContaining("is corrupt");
  }

  /** The checkpoint as a store that has never seen its bytes parses it. */
  private static PreparedClaims reread(CheckpointStore store) {
    return new CheckpointStore(store.file(), JsonMapper.builder().build()).load("boot-1");
  }
}
