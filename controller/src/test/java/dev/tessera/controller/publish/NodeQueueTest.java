package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeQueueTest {
  private final TestClock clock = new TestClock(Instant.parse("2026-12-01T10:00:00Z"));
  private final NodeQueue queue = new NodeQueue(Backoff.DEFAULT, clock);

  private List<String> drain() {
    var out = new ArrayList<String>();
    for (Optional<String> n = queue.poll(); n.isPresent(); n = queue.poll()) {
      out.add(n.get());
    }
    return out;
  }

  @Test
  void aNodeNamedManyTimesIsHandedOutOnceInArrivalOrder() {
    queue.add("a");
    queue.add("b");
    queue.add("a");
    queue.add("a");
    assertThat(queue.depth()).isEqualTo(2);
    assertThat(drain()).containsExactly("a", "b");
  }

  @Test
  void aNodeNamedWhileAWorkerHasItRunsOnceMoreAfterAndNeverTwiceAtOnce() {
    queue.add("a");
    assertThat(queue.poll()).contains("a");
    queue.add("a");
    queue.add("a");
    assertThat(queue.poll()).isEmpty();
    queue.done("a", true);
    assertThat(drain()).containsExactly("a");
    queue.done("a", true);
    assertThat(drain()).isEmpty();
  }

  @Test
  void aFailedNodeWaitsOutItsBackoffWhichDoublesPerFailureInARow() {
    queue.add("a");
    assertThat(queue.poll()).contains("a");
    assertThat(queue.done("a", false)).isEqualTo(Duration.ofMillis(200));
    assertThat(queue.poll()).isEmpty();
    assertThat(queue.backingOff()).isEqualTo(1);
    assertThat(queue.nextDue()).contains(clock.instant().plusMillis(200));
    clock.advance(Duration.ofMillis(199));
    assertThat(queue.poll()).isEmpty();
    clock.advance(Duration.ofMillis(1));
    assertThat(queue.poll()).contains("a");
    assertThat(queue.done("a", false)).isEqualTo(Duration.ofMillis(400));
    clock.advance(Duration.ofMillis(400));
    assertThat(queue.poll()).contains("a");
    assertThat(queue.done("a", false)).isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void eventsDuringABackoffJoinTheOneRetryInsteadOfAddingRuns() {
    queue.add("a");
    queue.poll();
    queue.done("a", false);
    // The failing node's own writes echo back as slice events, and resyncs name it too.
    for (int i = 0; i < 50; i++) {
      queue.add("a");
    }
    assertThat(queue.poll()).isEmpty();
    assertThat(queue.depth()).isZero();
    clock.advance(Duration.ofMillis(200));
    assertThat(drain()).containsExactly("a");
  }

  @Test
  void aChangeSeenDuringAFailedRunWaitsForTheRetryNotARunOfItsOwn() {
    queue.add("a");
    queue.poll();
    queue.add("a");
    queue.done("a", false);
    assertThat(queue.poll()).isEmpty();
    clock.advance(Duration.ofMillis(200));
    assertThat(queue.poll()).contains("a");
  }

  @Test
  void aSuccessForgetsTheFailures() {
    queue.add("a");
    for (int i = 0; i < 5; i++) {
      queue.poll();
      queue.done("a", false);
      clock.advance(Duration.ofMinutes(5));
    }
    assertThat(queue.poll()).contains("a");
    queue.done("a", true);
    queue.add("a");
    queue.poll();
    assertThat(queue.done("a", false)).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void oneFailingNodeDoesNotHoldUpTheOthers() {
    queue.add("bad");
    queue.poll();
    queue.done("bad", false);
    queue.add("good");
    queue.add("bad");
    assertThat(drain()).containsExactly("good");
  }

  @Test
  void takeWaitsForTheNextDueRetry() throws Exception {
    var real =
        new NodeQueue(new Backoff(Duration.ofMillis(50), Duration.ofMillis(50)), Clock.systemUTC());
    real.add("a");
    assertThat(real.take()).isEqualTo("a");
    real.done("a", false);
    assertThat(real.take()).isEqualTo("a");
  }
}
