package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PublishSettingsTest {
  private static PublishSettings with(int workers, Duration listTimeout) {
    return new TestPublishSettings().workers(workers).listTimeout(listTimeout).build();
  }

  @Test
  void aListTimeoutThatIsNotPositiveIsRejectedByName() {
    assertThatThrownBy(() -> with(8, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("listTimeout must be positive, not PT0S");
    assertThatThrownBy(() -> with(8, Duration.ofSeconds(-1)))
        .hasMessageContaining("listTimeout must be positive");
  }

  @Test
  void aCallTimeoutThatIsNotPositiveIsRejectedByName() {
    assertThatThrownBy(() -> new TestPublishSettings().callTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("callTimeout must be positive, not PT0S");
  }

  @Test
  void noWorkersIsRejectedByName() {
    assertThatThrownBy(() -> with(0, Duration.ofMinutes(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("workers must be at least 1, not 0");
  }
}
