package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LeaseSightTest {
  private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");
  private final TestClock clock = new TestClock(START);
  private final LeaseSight sight = new LeaseSight(clock);

  @Test
  void sightStartsWhenTheInformerStarts() {
    clock.advance(Duration.ofSeconds(7));
    sight.restarted();
    assertThat(sight.since()).isEqualTo(START.plusSeconds(7));
  }

  @Test
  void aWatchingInformerKeepsItsSightAndABrokenOneStartsItAgainAtTheEndOfTheGap() {
    clock.advance(Duration.ofSeconds(10));
    sight.observe(true);
    assertThat(sight.since()).isEqualTo(START);
    // Broken for 30 s: each observation pushes the start of sight on.
    for (int i = 0; i < 30; i++) {
      clock.advance(Duration.ofSeconds(1));
      sight.observe(false);
    }
    Instant lastBlind = START.plusSeconds(40);
    assertThat(sight.since()).isEqualTo(lastBlind);
    clock.advance(Duration.ofSeconds(1));
    sight.observe(true);
    assertThat(sight.since()).isEqualTo(lastBlind);
  }

  @Test
  void eachLossAndReturnOfSightIsReportedOnce() {
    assertThat(sight.observe(true)).isEqualTo(LeaseSight.Change.NONE);
    assertThat(sight.observe(false)).isEqualTo(LeaseSight.Change.LOST);
    assertThat(sight.observe(false)).isEqualTo(LeaseSight.Change.NONE);
    assertThat(sight.observe(true)).isEqualTo(LeaseSight.Change.REGAINED);
    assertThat(sight.observe(true)).isEqualTo(LeaseSight.Change.NONE);
  }
}
