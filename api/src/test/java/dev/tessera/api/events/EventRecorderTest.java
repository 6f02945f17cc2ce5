package dev.tessera.api.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventRecorderTest {
  private static final EventSource SOURCE = new EventSource("tessera-controller", "pod-1");
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
  private static final Occurrence TAINTED =
      new Occurrence(
          new InvolvedObject("gpu.tessera.dev/v1alpha1", "GpuNode", "", "node-a", "u"),
          EventType.WARNING,
          "DeviceTainted",
          "gpu-0: XID 79");

  private static final class Recording implements EventSink {
    final List<EventWrite> writes = new CopyOnWriteArrayList<>();
    final List<EventWrite> failures = new CopyOnWriteArrayList<>();
    volatile RuntimeException fail;
    volatile CountDownLatch gate;
    final CountDownLatch entered = new CountDownLatch(1);

    @Override
    public void write(EventWrite write) {
      entered.countDown();
      if (gate != null) {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (fail != null) {
        throw fail;
      }
      writes.add(write);
    }

    @Override
    public void failed(EventWrite write, RuntimeException cause) {
      failures.add(write);
    }
  }

  @Test
  void writesAndAggregatesOnItsOwnThread() throws Exception {
    var sink = new Recording();
    try (var recorder = new EventRecorder(SOURCE, EventPolicy.CLIENT_GO, sink, CLOCK, 10)) {
      recorder.record(TAINTED);
      recorder.record(TAINTED);

      assertThat(recorder.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(sink.writes).hasSize(2);
      assertThat(sink.writes.get(0)).isInstanceOf(EventWrite.Create.class);
      assertThat(sink.writes.get(1)).isInstanceOf(EventWrite.Increment.class);
      assertThat(sink.writes.get(1).event().count()).isEqualTo(2);
      assertThat(recorder.written()).isEqualTo(2);
    }
  }

  @Test
  void aFailedWriteIsHandedToTheSinkAndDropped() throws Exception {
    var sink = new Recording();
    sink.fail = new IllegalStateException("API server down");
    try (var recorder = new EventRecorder(SOURCE, EventPolicy.CLIENT_GO, sink, CLOCK, 10)) {
      recorder.record(TAINTED);

      assertThat(recorder.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(sink.failures).hasSize(1);
      assertThat(recorder.dropped(EventRecorder.Dropped.WRITE_FAILED)).isEqualTo(1);
    }
  }

  @Test
  void aFullQueueDropsWithoutBlockingTheCaller() throws Exception {
    var sink = new Recording();
    sink.gate = new CountDownLatch(1);
    try (var recorder = new EventRecorder(SOURCE, EventPolicy.CLIENT_GO, sink, CLOCK, 2)) {
      for (int i = 0; i < 10; i++) {
        recorder.record(TAINTED);
      }
      assertThat(recorder.dropped(EventRecorder.Dropped.QUEUE_FULL)).isGreaterThanOrEqualTo(7);
      sink.gate.countDown();
      assertThat(recorder.awaitIdle(Duration.ofSeconds(5))).isTrue();
    }
  }

  @Test
  void theSpamFilterIsCounted() throws Exception {
    var sink = new Recording();
    var policy = new EventPolicy(1, Duration.ofMinutes(5), Duration.ofHours(1), 10);
    try (var recorder = new EventRecorder(SOURCE, policy, sink, CLOCK, 10)) {
      recorder.record(TAINTED);
      recorder.record(TAINTED);

      assertThat(recorder.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(sink.writes).hasSize(1);
      assertThat(recorder.dropped(EventRecorder.Dropped.RATE_LIMITED)).isEqualTo(1);
    }
  }

  @Test
  void aCloseEndsInTimeWhileAWriteNeverEndsAndTheQueueIsFull() throws Exception {
    var sink = new Recording();
    sink.gate = new CountDownLatch(1); // never opened: an answer that never comes
    var recorder = new EventRecorder(SOURCE, EventPolicy.CLIENT_GO, sink, CLOCK, 1);
    recorder.record(TAINTED); // taken by the writer, which waits on it
    assertThat(sink.entered.await(5, TimeUnit.SECONDS))
        .as("the writer waits on the write")
        .isTrue();
    recorder.record(TAINTED); // fills the queue

    long begun = System.nanoTime();
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> recorder.close(Duration.ofMillis(500)));

    assertThat(Duration.ofNanos(System.nanoTime() - begun))
        .as("the close, bounded by 500 ms and its 100 ms offers")
        .isLessThan(Duration.ofSeconds(3));
  }
}
