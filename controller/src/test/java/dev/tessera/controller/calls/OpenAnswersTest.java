package dev.tessera.controller.calls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.publish.TestClock;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The answers a run of calls opened, and what giving the calls up does to them. */
class OpenAnswersTest {
  private static final Duration BOUND = Duration.ofSeconds(2);

  private final TestClock clock = new TestClock(Instant.parse("2026-12-07T12:00:00Z"));
  private final CallDeadlines deadlines =
      new CallDeadlines(BOUND, clock, new SimpleMeterRegistry());

  @Test
  void answersAreTiedOnlyToTheThreadWhoseCallsAreUnderWay() {
    assertThat(deadlines.answersOfThisThread()).as("no calls under way").isNull();
    var during = new AtomicReference<OpenAnswers>();
    deadlines.run("slice-writes", "node-a", () -> during.set(deadlines.answersOfThisThread()));
    assertThat(during.get()).as("during the calls").isNotNull();
    assertThat(deadlines.answersOfThisThread()).as("after them").isNull();
  }

  @Test
  void givingUpCancelsTheAnswersStillComingAndOnesOpenedAfter() {
    var stalled = new Answer();
    var whole = new Answer();
    whole.done().complete(null);
    var late = new Answer();
    var answers = new OpenAnswers();
    answers.opened(stalled);
    answers.opened(whole);

    assertThat(answers.cancel()).as("answers still coming when given up").isEqualTo(1);
    answers.opened(late);

    assertThat(stalled.cancelled).isTrue();
    assertThat(late.cancelled).as("headers that came as the calls were given up").isTrue();
  }

  @Test
  void callsThatEndInTimeCancelNothing() {
    var answer = new Answer();
    deadlines.run("slice-writes", "node-a", () -> deadlines.answersOfThisThread().opened(answer));
    clock.advance(BOUND.plusSeconds(1));
    deadlines.interruptOverdue();
    assertThat(answer.cancelled).isFalse();
  }

  @Test
  void callsPastTheBoundHaveTheirAnswersCancelled() throws Exception {
    var answer = new Answer();
    var opened = new CompletableFuture<Void>();
    Thread caller =
        Thread.ofPlatform()
            .start(
                () ->
                    deadlines.run(
                        "slice-writes",
                        "node-a",
                        () -> {
                          deadlines.answersOfThisThread().opened(answer);
                          opened.complete(null);
                          try {
                            answer.done().join(); // the answer's body, which stalls
                          } catch (CancellationException e) {
                            // ended by the cancel, as fabric8's wait for the body is
                          }
                        }));
    opened.join();
    clock.advance(BOUND.plusMillis(1));

    deadlines.interruptOverdue();

    caller.join(Duration.ofSeconds(5));
    assertThat(answer.cancelled).isTrue();
    assertThat(caller.isAlive()).as("the caller, its answer cancelled").isFalse();
  }

  /** An answer's body as fabric8 hands it over: done when read whole, or cancelled. */
  private static final class Answer implements AsyncBody {
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile boolean cancelled;

    @Override
    public void consume() {}

    @Override
    public CompletableFuture<Void> done() {
      return done;
    }

    @Override
    public void cancel() {
      cancelled = true;
      done.cancel(false);
    }
  }
}
