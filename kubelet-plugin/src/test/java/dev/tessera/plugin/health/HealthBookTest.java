package dev.tessera.plugin.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.health.DeviceProblem;
import dev.tessera.api.health.HealthTaintKeys;
import dev.tessera.api.health.TaintEffect;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HealthBookTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
  private final HealthBook book = new HealthBook(new XidPolicy(Set.of(119)), Duration.ofMinutes(5));

  @Test
  void aCriticalXidMakesTheGpuUnhealthyAndItsMigDevicesToo() {
    assertThat(book.observe(new HealthObservation.Xid("gpu-0", 48), T0)).isTrue();

    var health = book.snapshot();
    assertThat(health.healthy("gpu-0")).isFalse();
    assertThat(health.healthy("gpu-0-mig-1g10gb-3")).isFalse();
    assertThat(health.healthy("gpu-1")).isTrue();
    assertThat(health.problemsOf("gpu-0"))
        .singleElement()
        .extracting(DeviceProblem::key, DeviceProblem::value, DeviceProblem::effect)
        .containsExactly(HealthTaintKeys.XID, "48", TaintEffect.NO_SCHEDULE);
    assertThat(health.unhealthyCount()).isEqualTo(1);
  }

  @Test
  void applicationAndConfiguredXidsAreInformational() {
    book.observe(new HealthObservation.Xid("gpu-0", 13), T0);
    book.observe(new HealthObservation.Xid("gpu-1", 119), T0);

    var health = book.snapshot();
    assertThat(health.healthy("gpu-0")).isTrue();
    assertThat(health.healthy("gpu-1")).isTrue();
    assertThat(health.problemsOf("gpu-0"))
        .singleElement()
        .extracting(DeviceProblem::effect)
        .isEqualTo(TaintEffect.NONE);
  }

  @Test
  void aMigDevicesOwnProblemLeavesItsParentHealthy() {
    book.observe(new HealthObservation.DoubleBitEcc("gpu-2-mig-3g40gb-4"), T0);

    var health = book.snapshot();
    assertThat(health.healthy("gpu-2-mig-3g40gb-4")).isFalse();
    assertThat(health.healthy("gpu-2")).isTrue();
    assertThat(health.healthy("gpu-2-mig-1g10gb-0")).isTrue();
  }

  @Test
  void aRepeatOnlyMovesLastSeenAndIsNotAChange() {
    book.observe(new HealthObservation.Xid("gpu-0", 48), T0);
    assertThat(book.observe(new HealthObservation.Xid("gpu-0", 48), T0.plusSeconds(60))).isFalse();

    var problem = book.snapshot().problemsOf("gpu-0").getFirst();
    assertThat(problem.since()).isEqualTo(T0);
    assertThat(problem.lastSeen()).isEqualTo(T0.plusSeconds(60));
  }

  @Test
  void criticalAndInformationalXidsOnOneGpuAreTwoProblems() {
    book.observe(new HealthObservation.Xid("gpu-0", 48), T0);
    assertThat(book.observe(new HealthObservation.Xid("gpu-0", 43), T0)).isTrue();

    assertThat(book.snapshot().problemsOf("gpu-0"))
        .extracting(DeviceProblem::effect)
        .containsExactlyInAnyOrder(TaintEffect.NO_SCHEDULE, TaintEffect.NONE);
  }

  @Test
  void aProblemClearsAfterAQuietPeriodOnlyWhenTheGpuAnswers() {
    book.observe(new HealthObservation.GpuLost("gpu-0"), T0);
    book.observe(new HealthObservation.Xid("gpu-1", 48), T0.plusSeconds(200));

    assertThat(book.recover(T0.plusSeconds(299), name -> true)).isFalse();
    assertThat(book.recover(T0.plusSeconds(300), name -> false)).isFalse();
    assertThat(book.snapshot().healthy("gpu-0")).isFalse();

    assertThat(book.recover(T0.plusSeconds(300), name -> true)).isTrue();
    var health = book.snapshot();
    assertThat(health.healthy("gpu-0")).isTrue();
    assertThat(health.healthy("gpu-1")).isFalse();
  }

  @Test
  void aProblemSeenAgainStartsItsQuietPeriodOver() {
    book.observe(new HealthObservation.Xid("gpu-0", 48), T0);
    book.observe(new HealthObservation.Xid("gpu-0", 48), T0.plusSeconds(240));

    assertThat(book.recover(T0.plusSeconds(300), name -> true)).isFalse();
    assertThat(book.recover(T0.plusSeconds(540), name -> true)).isTrue();
  }
}
