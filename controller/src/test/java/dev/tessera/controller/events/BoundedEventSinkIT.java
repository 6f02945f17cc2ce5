package dev.tessera.controller.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.events.EventPolicy;
import dev.tessera.api.events.EventRecorder;
import dev.tessera.api.events.EventSource;
import dev.tessera.api.events.EventType;
import dev.tessera.api.events.InvolvedObject;
import dev.tessera.api.events.Occurrence;
import dev.tessera.controller.calls.CallAnswers;
import dev.tessera.controller.calls.CallDeadlines;
import dev.tessera.controller.publish.ProxiedMockApi;
import dev.tessera.controller.publish.StallingProxy;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The controller's Events through a proxy in front of fabric8's CRUD mock API server, the first
 * Event's create answered with its headers and then nothing (fabric8's JDK client has no timeout
 * after them): the write is given up past the call timeout, its answer cancelled, and the next
 * Event written. Before, the recorder's one thread waited on it for good, and every Event after it
 * was dropped.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BoundedEventSinkIT {
  private static final String EVENT_CREATE = "POST /api/v1/namespaces/default/events HTTP/1.1";

  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final CallDeadlines deadlines =
      new CallDeadlines(Duration.ofSeconds(1), Clock.systemUTC(), metrics);
  private final ProxiedMockApi api = new ProxiedMockApi(new CallAnswers(deadlines));
  private final StallingProxy proxy = api.proxy();
  private final KubernetesClient client = api.client();
  private final EventRecorder recorder =
      new EventRecorder(
          new EventSource("tessera-controller", "bounded-event-sink-it"),
          EventPolicy.CLIENT_GO,
          new BoundedEventSink(new KubernetesEventSink(client), deadlines),
          Clock.systemUTC(),
          10);

  /** Judges the calls under way, as the controller does each second while it leads. */
  private final ScheduledExecutorService judge = Executors.newSingleThreadScheduledExecutor();

  BoundedEventSinkIT() throws IOException {}

  @AfterEach
  void close() throws Exception {
    try {
      judge.shutdownNow();
      recorder.close();
    } finally {
      api.close();
    }
  }

  @Test
  void anEventWriteWhoseAnswerStallsIsGivenUpAndTheNextWritten() {
    judge.scheduleWithFixedDelay(deadlines::interruptOverdue, 200, 200, TimeUnit.MILLISECONDS);
    proxy.stall(EVENT_CREATE::equals);
    recorder.record(tainted("node-a"));
    await().atMost(Duration.ofSeconds(10)).until(() -> !proxy.stalled().isEmpty());
    proxy.stall(line -> false);

    recorder.record(tainted("node-b"));

    await()
        .alias("node-b's Event written")
        .atMost(Duration.ofSeconds(20))
        .until(() -> eventNodes().contains("node-b"));
    assertThat(eventNodes()).as("Events written").containsExactly("node-b");
    assertThat(recorder.dropped(EventRecorder.Dropped.WRITE_FAILED))
        .as("Events dropped as failed writes")
        .isEqualTo(1);
    assertThat(metrics.get("tessera.controller.calls.abandoned").tag("call", "event-writes"))
        .satisfies(c -> assertThat(c.counter().count()).as("Event writes given up").isEqualTo(1));
    await()
        .alias("the given-up Event write's stalled answer ended by the controller")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(proxy.endedByClient()).containsExactly(EVENT_CREATE));
  }

  private static Occurrence tainted(String node) {
    return new Occurrence(
        new InvolvedObject(GpuNodeNames.API_VERSION, GpuNodeNames.KIND, "", node, "uid-" + node),
        EventType.WARNING,
        HealthTransitions.TAINTED,
        "tainted gpu-0 with gpu.tessera.dev/xid=79: fell off the bus");
  }

  private List<String> eventNodes() {
    return api.direct().v1().events().inNamespace("default").list().getItems().stream()
        .map(Event::getInvolvedObject)
        .map(o -> o.getName())
        .toList();
  }
}
