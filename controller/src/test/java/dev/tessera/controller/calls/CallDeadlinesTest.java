package dev.tessera.controller.calls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.publish.TestClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CallDeadlinesTest {
  private static final Instant T0 = Instant.parse("2026-12-07T12:00:00Z");
  private static final Duration BOUND = Duration.ofSeconds(2);

  private final TestClock clock = new TestClock(T0);
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final CallDeadlines deadlines = new CallDeadlines(BOUND, clock, metrics);

  @Test
  void aWritePastTheBoundIsInterruptedOnceAndItsThreadGoesOnUninterrupted() throws Exception {
    var answer = new CountDownLatch(1); // never counted down: an answer that never comes
    var failure = new AtomicReference<Throwable>();
    var interruptedAfter = new AtomicBoolean(true);
    Thread writer =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    deadlines.run("slice-writes", "node-a", () -> awaitAnswer(answer));
                  } catch (RuntimeException e) {
                    failure.set(e);
                  }
                  interruptedAfter.set(Thread.currentThread().isInterrupted());
                });
    await().atMost(Duration.ofSeconds(5)).until(() -> deadlines.underWay() == 1);

    clock.advance(BOUND);
    deadlines.interruptOverdue();
    assertThat(metrics.find("tessera.controller.calls.abandoned").counter())
        .as("given up at the bound, not past it")
        .isNull();
    assertThat(writer.isAlive()).isTrue();

    clock.advance(Duration.ofMillis(1));
    deadlines.interruptOverdue();
    deadlines.interruptOverdue(); // once only
    writer.join(Duration.ofSeconds(5));

    assertThat(writer.isAlive()).isFalse();
    assertThat(failure.get()).as("the write's failure").hasMessage("no answer: interrupted");
    assertThat(interruptedAfter).as("the thread still interrupted after the write").isFalse();
    assertThat(deadlines.underWay()).isZero();
    assertThat(
            metrics
                .get("tessera.controller.calls.abandoned")
                .tag("call", "slice-writes")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void aWriteWithinTheBoundIsLeftAlone() throws Exception {
    var answer = new CountDownLatch(1);
    var failure = new AtomicReference<Throwable>();
    Thread writer =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    deadlines.run("status-offering", "node-b", () -> awaitAnswer(answer));
                  } catch (RuntimeException e) {
                    failure.set(e);
                  }
                });
    await().atMost(Duration.ofSeconds(5)).until(() -> deadlines.underWay() == 1);

    clock.advance(BOUND.minusMillis(1));
    deadlines.interruptOverdue();
    answer.countDown();
    writer.join(Duration.ofSeconds(5));

    assertThat(failure.get()).isNull();
    assertThat(metrics.find("tessera.controller.calls.abandoned").counter()).isNull();
  }

  /** Waits for the answer as fabric8 does: an interrupt fails the request. */
  private static void awaitAnswer(CountDownLatch answer) {
    try {
      answer.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("no answer: interrupted", e);
    }
  }
}
