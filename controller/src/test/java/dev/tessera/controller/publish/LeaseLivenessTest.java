package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class LeaseLivenessTest {
  private static final Instant RENEWED = Instant.parse("2026-11-30T12:00:00Z");
  private static final Duration GRACE = Duration.ofSeconds(20);

  /** Sight long before the renewal: the renewal alone decides. */
  private static final Instant LONG_SEEN = RENEWED.minusSeconds(3600);

  private static Lease lease(Integer seconds) {
    return new LeaseBuilder()
        .withNewSpec()
        .withRenewTime(ZonedDateTime.ofInstant(RENEWED, ZoneOffset.UTC))
        .withLeaseDurationSeconds(seconds)
        .endSpec()
        .build();
  }

  @Test
  void aPluginIsAliveUntilItsLeaseAndTheGraceRunOut() {
    assertThat(LeaseLiveness.alive(lease(40), RENEWED.plusSeconds(59), GRACE, LONG_SEEN)).isTrue();
    assertThat(LeaseLiveness.alive(lease(40), RENEWED.plusSeconds(60), GRACE, LONG_SEEN)).isFalse();
  }

  @Test
  void afterABlindSpotEveryLeaseGetsOneFullPeriodFromWhenSightCameBack() {
    // The API server was away from RENEWED+5 s to RENEWED+90 s: no plugin could renew. Sight came
    // back at +90 s; a Lease last renewed at RENEWED is alive until +90+40+20 s, not dead since
    // +60.
    Instant back = RENEWED.plusSeconds(90);
    assertThat(LeaseLiveness.alive(lease(40), back.plusSeconds(1), GRACE, back)).isTrue();
    assertThat(LeaseLiveness.alive(lease(40), back.plusSeconds(59), GRACE, back)).isTrue();
    // A plugin that does not renew in that period is gone.
    assertThat(LeaseLiveness.alive(lease(40), back.plusSeconds(60), GRACE, back)).isFalse();
  }

  @Test
  void noLeaseOrNoRenewalMeansGoneWhateverTheSight() {
    assertThat(LeaseLiveness.alive(null, RENEWED, Duration.ZERO, RENEWED)).isFalse();
    assertThat(
            LeaseLiveness.alive(
                new LeaseBuilder().withNewSpec().endSpec().build(),
                RENEWED,
                Duration.ZERO,
                RENEWED))
        .isFalse();
  }
}
