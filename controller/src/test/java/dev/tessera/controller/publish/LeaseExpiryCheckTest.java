package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** An expiry the Leases' cache shows, confirmed or contradicted by the API server's Lease. */
class LeaseExpiryCheckTest {
  private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
  private static final Duration GRACE = Duration.ofSeconds(20);

  private final Map<String, Lease> apiServer = new HashMap<>();
  private final AtomicInteger relists = new AtomicInteger();
  private final Counter contradicted =
      Counter.builder("contradicted").register(new SimpleMeterRegistry());
  private final LeaseExpiryCheck check =
      new LeaseExpiryCheck(apiServer::get, () -> relists.incrementAndGet() > 0, contradicted);
  private final Predicate<Lease> alive =
      lease -> LeaseLiveness.alive(lease, NOW, GRACE, NOW.minus(Duration.ofHours(1)));

  @Test
  void aLeaseTheApiServerHasRenewedKeepsThePluginAliveAndTheLeasesAreListedAgain() {
    Lease cached = renewedAgo(Duration.ofSeconds(61));
    apiServer.put("node-a", renewedAgo(Duration.ofSeconds(3)));

    assertThat(check.aliveAfterAll("node-a", cached, alive)).isTrue();
    assertThat(relists).hasValue(1);
    assertThat(contradicted.count()).isEqualTo(1);
  }

  @Test
  void anExpiryTheApiServerShowsTooIsConfirmed() {
    Lease cached = renewedAgo(Duration.ofSeconds(61));
    apiServer.put("node-a", cached);

    assertThat(check.aliveAfterAll("node-a", cached, alive)).isFalse();
    assertThat(relists).hasValue(0);
    assertThat(contradicted.count()).isZero();
  }

  @Test
  void aLeaseTheApiServerNoLongerHasIsConfirmedGone() {
    assertThat(check.aliveAfterAll("node-a", renewedAgo(Duration.ofSeconds(61)), alive)).isFalse();
    assertThat(check.aliveAfterAll("node-a", null, alive)).isFalse();
    assertThat(relists).hasValue(0);
  }

  /** A plugin's Lease held for 40 s, renewed {@code ago}. */
  private static Lease renewedAgo(Duration ago) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withName("tessera-node-a")
        .endMetadata()
        .withNewSpec()
        .withLeaseDurationSeconds(40)
        .withRenewTime(NOW.minus(ago).atZone(ZoneOffset.UTC))
        .endSpec()
        .build();
  }
}
