package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.SharingStrategy;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PreparedDevice;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class StatusReporterTest {
  private final List<String> writes = new CopyOnWriteArrayList<>();
  private final ClaimRef a = new ClaimRef("ns", "a", "uid-a");
  private final ClaimRef b = new ClaimRef("ns", "b", "uid-b");
  private final List<PreparedDevice> gpu0 =
      List.of(
          new PreparedDevice(
              List.of("gpu"),
              "n",
              "gpu-0",
              List.of("x"),
              "GPU-0",
              SharingStrategy.EXCLUSIVE,
              null));

  private StatusReporter reporter(Duration delay) {
    return new StatusReporter(
        (claim, devices) -> writes.add("prepared " + claim.name() + " " + devices.size()),
        claim -> writes.add("cleared " + claim.name()),
        delay);
  }

  @Test
  void onlyTheLatestWishOfAClaimIsWrittenInTheOrderClaimsWereTouched() throws Exception {
    try (var reporter = reporter(Duration.ofMillis(200))) {
      reporter.prepared(a, gpu0);
      reporter.prepared(b, gpu0);
      reporter.cleared(a);
      assertThat(reporter.awaitIdle(Duration.ofSeconds(5))).isTrue();
    }
    assertThat(writes).containsExactly("cleared a", "prepared b 1");
  }

  @Test
  void eachWishIsWrittenWhenTheyComeApart() throws Exception {
    try (var reporter = reporter(Duration.ZERO)) {
      reporter.prepared(a, gpu0);
      assertThat(reporter.awaitIdle(Duration.ofSeconds(5))).isTrue();
      reporter.cleared(a);
      assertThat(reporter.awaitIdle(Duration.ofSeconds(5))).isTrue();
    }
    assertThat(writes).containsExactly("prepared a 1", "cleared a");
  }

  @Test
  void closingWritesWhatIsPendingWithoutWaitingForTheDelay() throws Exception {
    var reporter = reporter(Duration.ofHours(1));
    reporter.prepared(a, gpu0);
    long start = System.nanoTime();
    reporter.close();
    assertThat(writes).containsExactly("prepared a 1");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aFailedWriteDoesNotStopLaterOnes() throws Exception {
    try (var reporter =
        new StatusReporter(
            (claim, devices) -> {
              throw new IllegalStateException("API server down");
            },
            claim -> writes.add("cleared " + claim.name()),
            Duration.ZERO)) {
      reporter.prepared(a, gpu0);
      reporter.cleared(b);
      assertThat(reporter.awaitIdle(Duration.ofSeconds(5))).isTrue();
    }
    assertThat(writes).containsExactly("cleared b");
  }
}
