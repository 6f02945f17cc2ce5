package dev.tessera.controller.calls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.controller.publish.TestClock;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Which requests' answers the interceptor ties to the calls under way. */
class CallAnswersTest {
  private final CallDeadlines deadlines =
      new CallDeadlines(
          Duration.ofSeconds(2),
          new TestClock(Instant.parse("2026-12-07T12:00:00Z")),
          new SimpleMeterRegistry());
  private final CallAnswers answers = new CallAnswers(deadlines);

  @Test
  void aRequestIsTiedOnTheThreadWhoseCallsMakeItAndItsRetryOnFabric8sTimerToo() {
    AsyncBody.Consumer<List<ByteBuffer>> request = (bytes, body) -> {};
    AsyncBody.Consumer<List<ByteBuffer>> unrelated = (bytes, body) -> {};
    var firstTry = new AtomicReference<AsyncBody.Consumer<List<ByteBuffer>>>();

    deadlines.run("slice-writes", "node-a", () -> firstTry.set(answers.consumer(request, null)));
    var retry = CompletableFuture.supplyAsync(() -> answers.consumer(request, null)).join();

    assertThat(firstTry.get()).as("the first try's consumer").isNotSameAs(request);
    assertThat(retry).as("the retry's, on another thread").isNotSameAs(request);
    assertThat(answers.consumer(unrelated, null))
        .as("a request made by no calls under way")
        .isSameAs(unrelated);
  }

  @Test
  void aWebSocketsUpgradeHasNoConsumerAndIsLeftAlone() {
    answers.after(null, null, null); // fabric8 tells interceptors of an upgrade so
  }
}
