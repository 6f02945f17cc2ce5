package dev.tessera.plugin.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.api.fuzz.Fuzz;
import dev.tessera.api.fuzz.JsonTrees;
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
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * A checkpoint file torn, flipped or of the wrong shape: the store reads a checkpoint whose every
 * claim is whole, with as many claims as were written, or refuses with a start-up error that names
 * the file and what to do. Never another exception, never fewer claims (a silent reset).
 */
class CheckpointStoreFuzzTest {
  private static final String BOOT = "boot-1";
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** UIDs one character apart, so a flip can make two claims one. */
  private static final PreparedClaims WRITTEN =
      PreparedClaims.empty(BOOT)
          .with(
              "uid-1",
              new ClaimEntry(
                  ClaimState.PrepareCompleted,
                  "default",
                  "exclusive",
                  List.of(device("gpu-0", "GPU-0", "Exclusive", null, SharingSettings.NONE))))
          .with(
              "uid-3",
              new ClaimEntry(
                  ClaimState.PrepareCompleted,
                  "team-a",
                  "mps",
                  List.of(
                      device(
                          "gpu-1",
                          "GPU-1",
                          "MPS",
                          "share-1",
                          new SharingSettings(null, 50, 1L << 30)))))
          .with(
              "uid-2",
              new ClaimEntry(
                  ClaimState.PrepareStarted,
                  "team-b",
                  "mig",
                  List.of(
                      device(
                          "gpu-2-mig-1g10gb-0", "MIG-2", "Exclusive", null, SharingSettings.NONE)),
                  List.of(
                      new CreatedMig(
                          "GPU-2",
                          "gpu-2-mig-1g10gb-0",
                          19,
                          "1g.10gb",
                          new MigPlacement(0, 1),
                          3,
                          0,
                          "MIG-2",
                          true))));

  @TempDir Path dir;
  private CheckpointStore store;
  private byte[] written;

  @BeforeEach
  void save() throws Exception {
    store = new CheckpointStore(dir.resolve("checkpoint.json"), JSON);
    store.save(WRITTEN, Durability.DURABLE);
    written = Files.readAllBytes(store.file());
    assertThat(store.load(BOOT)).isEqualTo(WRITTEN);
  }

  @Test
  void aTornFileIsAStartUpErrorNamingTheFile() {
    Fuzz.check(
        "checkpoint, torn",
        r -> Arrays.copyOf(written, r.nextInt(written.length)),
        this::refusedOrWhole);
    // Every point, not only the drawn ones: a checkpoint is a few hundred bytes.
    for (int length = 0; length < written.length; length++) {
      byte[] torn = Arrays.copyOf(written, length);
      assertThatThrownBy(() -> loadFrom(torn))
          .as("torn at %d", length)
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void flippedBytesAreReadWholeOrRefused() {
    Fuzz.check("checkpoint, flipped bytes", this::flipped, this::refusedOrWhole);
  }

  @Test
  void jsonOfTheWrongShapeIsReadWholeOrRefused() {
    var trees =
        new JsonTrees(
            List.of(
                "apiVersion",
                "bootId",
                "claims",
                "state",
                "devices",
                "uid-1",
                "PrepareCompleted",
                CheckpointFile.API_VERSION,
                "createdMig",
                "placement",
                "namespace",
                "name"));
    Object tree = JSON.readValue(written, Object.class);
    Fuzz.check(
        "checkpoint, mutated JSON",
        r ->
            JSON.writeValueAsBytes(
                r.nextInt(10) == 0 ? trees.tree(r, 4) : trees.mutationOf(List.of(tree), r)),
        content -> refusedOrWhole(content, false));
  }

  @Test
  void anEmptyFileOrAnotherVersionIsAStartUpError() throws Exception {
    for (String content :
        List.of(
            "",
            " ",
            "null",
            "[]",
            "{}",
            "0",
            "\"checkpoint\"",
            new String(written)
                .replace(CheckpointFile.API_VERSION, "checkpoint.gpu.tessera.dev/v2"))) {
      assertThatThrownBy(() -> loadFrom(content.getBytes()))
          .as(content)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(store.file().toString())
          .hasMessageContaining("restore the file");
    }
  }

  /** Found by the properties above, or by reading what they cannot reach by chance. */
  @Test
  void aClaimTwiceOrAClaimWithoutItsFieldsIsAStartUpError() {
    String text = new String(written);
    for (String content :
        List.of(
            // One bit flipped ('3' to '1'): read as the last uid-1 alone, uid-3 was forgotten.
            text.replace("\"uid-3\"", "\"uid-1\""),
            text.replaceFirst("\\{\"state\":\"PrepareCompleted\"", "{\"state\":null"),
            text.replaceFirst("\"uid-1\":\\{.*?\"createdMig\":\\[\\]\\}", "\"uid-1\":null"),
            text.replaceFirst("\"bootId\":\"boot-1\"", "\"bootId\":null"))) {
      assertThat(content).isNotEqualTo(text);
      assertThatThrownBy(() -> loadFrom(content.getBytes()))
          .as(content)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("restore the file");
    }
  }

  private void refusedOrWhole(byte[] content) throws Exception {
    refusedOrWhole(content, true);
  }

  /**
   * @param allClaims whether every claim must be read: a byte flip or a tear cannot remove one and
   *     leave a checkpoint, an edit of the JSON can
   */
  private void refusedOrWhole(byte[] content, boolean allClaims) throws Exception {
    PreparedClaims read;
    try {
      read = loadFrom(content);
    } catch (IllegalStateException e) {
      assertThat(e)
          .hasMessageStartingWith("checkpoint " + store.file() + " ")
          .hasMessageContaining("restore the file, or drain the node");
      return;
    }
    if (allClaims) {
      assertThat(read.claims()).hasSameSizeAs(WRITTEN.claims());
    }
    assertThat(read.bootId()).isNotNull();
    read.claims()
        .forEach(
            (uid, entry) -> {
              assertThat(entry.state()).isNotNull();
              assertThat(entry.namespace()).isNotNull();
              assertThat(entry.name()).isNotNull();
              entry
                  .devices()
                  .forEach(
                      d ->
                          assertThat(List.of(d.pool(), d.device(), d.uuid(), d.sharing()))
                              .doesNotContainNull());
              entry
                  .createdMig()
                  .forEach(
                      m ->
                          assertThat(
                                  Arrays.asList(
                                      m.gpuUuid(), m.device(), m.profile(), m.placement()))
                              .doesNotContainNull());
            });
  }

  private PreparedClaims loadFrom(byte[] content) throws Exception {
    Files.write(store.file(), content);
    return store.load(BOOT);
  }

  private byte[] flipped(Random random) {
    byte[] content = written.clone();
    int flips = 1 + random.nextInt(3);
    for (int i = 0; i < flips; i++) {
      int at = random.nextInt(content.length);
      content[at] =
          random.nextBoolean()
              ? (byte) (content[at] ^ (1 << random.nextInt(8)))
              : (byte) "{}[]\",:0n1-".charAt(random.nextInt(11));
    }
    return content;
  }

  private static PreparedDevice device(
      String name, String uuid, String sharing, String shareId, SharingSettings settings) {
    return new PreparedDevice(
        List.of("gpu"),
        "node-a",
        name,
        List.of("k8s.gpu.tessera.dev/claim=" + name),
        uuid,
        SharingStrategy.ofConfigName(sharing).orElseThrow(),
        shareId,
        settings);
  }
}
