package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node's reconcile waits until its slice cache shows the node's last writes (creates and updates
 * with their digests, deletes gone), or until the patience is out.
 */
class WrittenSlicesTest {
  private static final Instant T0 = Instant.parse("2026-12-02T11:00:00Z");
  private final WrittenSlices written = new WrittenSlices(Duration.ofSeconds(30));

  @Test
  void aNodeWithoutWritesIsNotAwaited() {
    assertThat(written.awaited("n", List.of(), T0)).isFalse();
  }

  @Test
  void theWritesAreAwaitedUntilTheCacheShowsThem() {
    written.wrote(
        "n",
        List.of(
            new SliceWrite.Create(slice("n-0", "a")),
            new SliceWrite.Update(slice("n-1", "b")),
            new SliceWrite.Delete("n-2")),
        T0);

    assertThat(written.awaited("n", List.of(), T0)).as("nothing cached yet").isTrue();
    assertThat(written.awaited("n", List.of(slice("n-0", "a"), slice("n-1", "old")), T0))
        .as("an update not seen yet")
        .isTrue();
    assertThat(
            written.awaited(
                "n", List.of(slice("n-0", "a"), slice("n-1", "b"), slice("n-2", "x")), T0))
        .as("a delete not seen yet")
        .isTrue();
    assertThat(written.awaited("n", List.of(slice("n-0", "a"), slice("n-1", "b")), T0))
        .as("all seen")
        .isFalse();
    assertThat(written.awaited("n", List.of(), T0)).as("forgotten once seen").isFalse();
  }

  @Test
  void theWaitEndsWithThePatience() {
    written.wrote("n", List.of(new SliceWrite.Create(slice("n-0", "a"))), T0);
    assertThat(written.awaited("n", List.of(), T0.plusSeconds(29))).isTrue();
    assertThat(written.awaited("n", List.of(), T0.plusSeconds(30))).isFalse();
    assertThat(written.awaited("n", List.of(), T0.plusSeconds(31))).isFalse();
  }

  @Test
  void aFailedNodeIsNotAwaited() {
    written.wrote("n", List.of(new SliceWrite.Create(slice("n-0", "a"))), T0);
    written.forget("n");
    assertThat(written.awaited("n", List.of(), T0)).isFalse();
  }

  private static ResourceSlice slice(String name, String digest) {
    var slice = new ResourceSlice();
    slice.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .addToAnnotations(SliceContentHash.ANNOTATION, digest)
            .build());
    return slice;
  }
}
