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
    Duration grace = Duration.ofSeconds(20);
    assertThat(LeaseLiveness.alive(lease(40), RENEWED.plusSeconds(59), grace)).isTrue();
    assertThat(LeaseLiveness.alive(lease(40), RENEWED.plusSeconds(60), grace)).isFalse();
  }

  @Test
  void noLeaseOrNoRenewalMeansGone() {
    assertThat(LeaseLiveness.alive(null, RENEWED, Duration.ZERO)).isFalse();
    assertThat(
            LeaseLiveness.alive(
                new LeaseBuilder().withNewSpec().endSpec().build(), RENEWED, Duration.ZERO))
        .isFalse();
  }
}
