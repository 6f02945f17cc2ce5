package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ListUnderWayTest {
  private static final Instant ASKED = Instant.parse("2026-12-07T10:00:00Z");
  private final ListUnderWay list = new ListUnderWay("gpunodes", ASKED);

  @Test
  void aListIsOverdueOnlyOnceItHasTakenLongerThanTheBound() {
    Duration bound = Duration.ofMinutes(5);

    assertThat(list.overdue(ASKED, bound)).isFalse();
    assertThat(list.overdue(ASKED.plus(bound), bound)).as("exactly the bound").isFalse();
    assertThat(list.overdue(ASKED.plus(bound).plusMillis(1), bound)).isTrue();
  }

  @Test
  void aClockBehindTheAskIsNotOverdue() {
    assertThat(list.overdue(ASKED.minusSeconds(30), Duration.ofSeconds(1))).isFalse();
  }
}
