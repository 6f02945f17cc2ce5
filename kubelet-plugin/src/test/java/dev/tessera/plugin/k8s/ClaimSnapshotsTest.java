package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClaimSnapshotsTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T20:00:00Z"));
  private final ClaimSnapshots snapshots = new ClaimSnapshots(Duration.ofSeconds(5), clock);

  private static ResourceClaim claim(String uid, String resourceVersion) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName("c-" + uid)
        .withUid(uid)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  @Test
  void aClaimIsItsUidsStartingPointUntilItGoesStale() {
    ResourceClaim read = claim("u1", "7");
    snapshots.remember(read);
    clock.advance(Duration.ofSeconds(5));
    assertThat(snapshots.fresh("u1")).containsSame(read);
    clock.advance(Duration.ofMillis(1));
    assertThat(snapshots.fresh("u1")).isEmpty();
    assertThat(snapshots.fresh("u2")).isEmpty();
  }

  @Test
  void theLatestClaimOfAUidWinsAndAForgottenOneIsGone() {
    snapshots.remember(claim("u1", "7"));
    ResourceClaim written = claim("u1", "8");
    snapshots.remember(written);
    assertThat(snapshots.fresh("u1")).containsSame(written);
    snapshots.forget("u1");
    assertThat(snapshots.fresh("u1")).isEmpty();
  }

  @Test
  void aNodesWorthOfClaimsIsKeptAndTheOldestGoBeyondIt() {
    for (int i = 0; i < 300; i++) {
      snapshots.remember(claim("u" + i, "1"));
    }
    assertThat(snapshots.fresh("u0")).isEmpty();
    assertThat(snapshots.fresh("u43")).isEmpty();
    assertThat(snapshots.fresh("u44")).isPresent();
    assertThat(snapshots.fresh("u299")).isPresent();
  }

  @Test
  void aClaimWithoutUidIsNotKept() {
    snapshots.remember(
        new ResourceClaimBuilder().withNewMetadata().withName("x").endMetadata().build());
    snapshots.remember(new ResourceClaim());
    assertThat(snapshots.fresh("null")).isEmpty();
  }
}
