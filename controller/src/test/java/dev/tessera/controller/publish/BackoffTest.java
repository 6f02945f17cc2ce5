package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void theDefaultStartsAt200MillisAndDoublesToFiveMinutes() {
    Backoff b = Backoff.DEFAULT;
    assertThat(b.after(0)).isZero();
    assertThat(b.after(1)).isEqualTo(Duration.ofMillis(200));
    assertThat(b.after(2)).isEqualTo(Duration.ofMillis(400));
    assertThat(b.after(3)).isEqualTo(Duration.ofMillis(800));
    assertThat(b.after(11)).isEqualTo(Duration.ofMillis(204_800));
    assertThat(b.after(12)).isEqualTo(Duration.ofMinutes(5));
    assertThat(b.after(1_000)).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void anInitialWaitAboveTheCapIsRefused() {
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initial <= max");
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
