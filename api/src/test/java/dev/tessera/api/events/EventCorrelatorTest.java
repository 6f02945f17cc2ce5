package dev.tessera.api.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EventCorrelatorTest {
  private static final EventSource SOURCE = new EventSource("tessera-kubelet-plugin", "node-a");
  private static final InvolvedObject CLAIM =
      InvolvedObject.resourceClaim("team-a", "train", "uid-1");
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  private final EventCorrelator correlator = new EventCorrelator(SOURCE, EventPolicy.CLIENT_GO);

  private static Occurrence prepared(String message) {
    return new Occurrence(CLAIM, EventType.NORMAL, "Prepared", message);
  }

  @Test
  void aFirstOccurrenceIsANewEventInTheObjectsNamespace() {
    EventWrite write = correlator.decide(prepared("gpu-0"), T0).orElseThrow();

    assertThat(write).isInstanceOf(EventWrite.Create.class);
    EventData event = write.event();
    assertThat(event.namespace()).isEqualTo("team-a");
    assertThat(event.name()).startsWith("train.");
    assertThat(event.count()).isEqualTo(1);
    assertThat(event.firstTimestamp()).isEqualTo(T0);
    assertThat(event.lastTimestamp()).isEqualTo(T0);
    assertThat(event.source()).isEqualTo(SOURCE);
  }

  @Test
  void theSameOccurrenceAgainIncrementsTheSameEvent() {
    EventData first = correlator.decide(prepared("gpu-0"), T0).orElseThrow().event();
    EventWrite again = correlator.decide(prepared("gpu-0"), T0.plusSeconds(30)).orElseThrow();

    assertThat(again).isInstanceOf(EventWrite.Increment.class);
    assertThat(again.event().name()).isEqualTo(first.name());
    assertThat(again.event().count()).isEqualTo(2);
    assertThat(again.event().firstTimestamp()).isEqualTo(T0);
    assertThat(again.event().lastTimestamp()).isEqualTo(T0.plusSeconds(30));
  }

  @Test
  void anotherMessageOrReasonIsAnotherEventWithAnotherName() {
    EventData first = correlator.decide(prepared("gpu-0"), T0).orElseThrow().event();
    EventWrite other = correlator.decide(prepared("gpu-1"), T0).orElseThrow();
    EventWrite failed =
        correlator
            .decide(new Occurrence(CLAIM, EventType.WARNING, "PrepareFailed", "gpu-0"), T0)
            .orElseThrow();

    assertThat(other).isInstanceOf(EventWrite.Create.class);
    assertThat(failed).isInstanceOf(EventWrite.Create.class);
    assertThat(other.event().name()).isNotEqualTo(first.name());
    assertThat(failed.event().name()).isNotIn(first.name(), other.event().name());
  }

  @Test
  void aRepeatAfterTheWindowIsANewEvent() {
    correlator.decide(prepared("gpu-0"), T0);
    EventWrite late = correlator.decide(prepared("gpu-0"), T0.plus(Duration.ofMinutes(61))).get();

    assertThat(late).isInstanceOf(EventWrite.Create.class);
    assertThat(late.event().count()).isEqualTo(1);
  }

  @Test
  void aClusterScopedObjectsEventsGoToDefault() {
    var gpuNode = new InvolvedObject("gpu.tessera.dev/v1alpha1", "GpuNode", "", "node-a", "u");
    EventData event =
        correlator
            .decide(new Occurrence(gpuNode, EventType.WARNING, "DeviceTainted", "gpu-0"), T0)
            .orElseThrow()
            .event();

    assertThat(event.namespace()).isEqualTo("default");
  }

  @Test
  void theSpamFilterAllowsABurstThenOnePerRefill() {
    var policy = new EventPolicy(3, Duration.ofMinutes(5), Duration.ofHours(1), 100);
    var limited = new EventCorrelator(SOURCE, policy);

    for (int i = 0; i < 3; i++) {
      assertThat(limited.decide(prepared("m" + i), T0)).isPresent();
    }
    assertThat(limited.decide(prepared("m3"), T0.plusSeconds(10))).isEmpty();
    assertThat(limited.decide(prepared("m4"), T0.plus(Duration.ofMinutes(5)))).isPresent();
    assertThat(limited.decide(prepared("m5"), T0.plus(Duration.ofMinutes(6)))).isEmpty();
  }

  @Test
  void theSpamFilterIsPerObject() {
    var policy = new EventPolicy(1, Duration.ofMinutes(5), Duration.ofHours(1), 100);
    var limited = new EventCorrelator(SOURCE, policy);
    var other = InvolvedObject.resourceClaim("team-a", "infer", "uid-2");

    assertThat(limited.decide(prepared("a"), T0)).isPresent();
    assertThat(limited.decide(prepared("b"), T0)).isEmpty();
    Optional<EventWrite> theirs =
        limited.decide(new Occurrence(other, EventType.NORMAL, "Prepared", "a"), T0);
    assertThat(theirs).isPresent();
  }

  @Test
  void longNamesAreCutToAValidEventName() {
    var longName = InvolvedObject.resourceClaim("ns", "x".repeat(253), "u");
    EventData event =
        correlator
            .decide(new Occurrence(longName, EventType.NORMAL, "Prepared", ""), T0)
            .orElseThrow()
            .event();

    assertThat(event.name().length()).isLessThanOrEqualTo(253);
  }

  @Test
  void longMessagesAreCut() {
    assertThat(prepared("m".repeat(5000)).message()).hasSize(Occurrence.MAX_MESSAGE);
  }
}
