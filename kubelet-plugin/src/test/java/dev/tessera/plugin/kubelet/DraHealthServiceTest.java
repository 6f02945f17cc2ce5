package dev.tessera.plugin.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The health stream's timeout: the DRA socket runs its calls one at a time on its own thread, so a
 * send waits for the prepare in progress; the kubelet must not mark the devices Unknown meanwhile.
 */
class DraHealthServiceTest {
  private final Clock clock = Clock.fixed(Instant.parse("2026-12-04T00:00:00Z"), ZoneOffset.UTC);

  @Test
  void theTimeoutCoversThreeHeartbeatsAndTheLongestCall() {
    try (var service =
        new DraHealthService(
            "node-a",
            () -> List.of("gpu-0", "gpu-1"),
            Duration.ofSeconds(10),
            Duration.ofSeconds(30),
            clock)) {
      var response = service.response();

      assertThat(response.getDevicesList())
          .hasSize(2)
          .allSatisfy(device -> assertThat(device.getHealthCheckTimeoutSeconds()).isEqualTo(60));
    }
  }

  @Test
  void aLongerToolTimeoutGivesALongerHealthTimeout() {
    try (var service =
        new DraHealthService(
            "node-a",
            () -> List.of("gpu-0"),
            Duration.ofSeconds(10),
            Duration.ofMinutes(2),
            clock)) {
      assertThat(service.response().getDevices(0).getHealthCheckTimeoutSeconds()).isEqualTo(150);
    }
  }
}
