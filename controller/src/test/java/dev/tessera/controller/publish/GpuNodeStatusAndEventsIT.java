package dev.tessera.controller.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.events.EventPolicy;
import dev.tessera.api.events.EventRecorder;
import dev.tessera.api.events.EventSource;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.controller.events.HealthTransitions;
import dev.tessera.controller.events.KubernetesEventSink;
import dev.tessera.plugin.it.MockApiServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The controller's writes beside the plugin's, against fabric8's CRUD mock API server: its {@code
 * status.offering} leaves the plugin's fields alone, and a taint change is an Event on the GpuNode,
 * aggregated when it repeats.
 */
class GpuNodeStatusAndEventsIT {
  private static final ResourceDefinitionContext GPU_NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup(GpuNodeNames.GROUP)
          .withVersion(GpuNodeNames.VERSION)
          .withKind(GpuNodeNames.KIND)
          .withPlural(GpuNodeNames.PLURAL)
          .withNamespaced(false)
          .build();

  private final MockApiServer api = new MockApiServer();

  @AfterEach
  void close() {
    api.close();
  }

  private EventRecorder recorder() {
    return new EventRecorder(
        new EventSource("tessera-controller", "tessera-controller-0"),
        EventPolicy.CLIENT_GO,
        new KubernetesEventSink(api.client()),
        Clock.systemUTC(),
        10);
  }

  /** node-a's health goes from {@code from} to {@code to}: its transitions told to the recorder. */
  private static void changes(EventRecorder recorder, NodeHealth from, NodeHealth to) {
    HealthTransitions.between("node-a", "uid-a", from, to).forEach(recorder::record);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> status(String node) {
    return (Map<String, Object>)
        api.client()
            .genericKubernetesResources(GPU_NODES)
            .withName(node)
            .get()
            .getAdditionalProperties()
            .get("status");
  }

  @Test
  void theOfferingIsWrittenBesideThePluginsFields() {
    var gpuNode =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(GpuNodeNames.API_VERSION)
            .withKind(GpuNodeNames.KIND)
            .withNewMetadata()
            .withName("node-a")
            .endMetadata()
            .build();
    gpuNode.setAdditionalProperty("status", Map.of("gpuCount", 2, "gpusFree", 1));
    api.client().genericKubernetesResources(GPU_NODES).resource(gpuNode).create();

    new GpuNodeStatusWriter(api.client()).writeOffering("node-a", "mig-dynamic");

    assertThat(status("node-a"))
        .containsEntry("offering", "mig-dynamic")
        .containsEntry("gpuCount", 2)
        .containsEntry("gpusFree", 1);
  }

  @Test
  void aGoneGpuNodeIsLeftAlone() {
    new GpuNodeStatusWriter(api.client()).writeOffering("gone", "exclusive");
    assertThat(api.client().genericKubernetesResources(GPU_NODES).withName("gone").get()).isNull();
  }

  @Test
  void aTaintIsAnEventOnTheGpuNodeCountedWhenItRepeats() throws Exception {
    var sick = ReportedNodesTest.unhealthy();
    try (var recorder = recorder()) {
      // The device falls ill, recovers, and falls ill again the same way.
      changes(recorder, NodeHealth.ALL_HEALTHY, sick);
      changes(recorder, sick, NodeHealth.ALL_HEALTHY);
      changes(recorder, NodeHealth.ALL_HEALTHY, sick);
      assertThat(recorder.awaitIdle(Duration.ofSeconds(10))).isTrue();
    }
    // The repeat is one merge patch of the Event, not a read and a patch.
    assertThat(api.drainRequests())
        .filteredOn(request -> request.contains("/events"))
        .extracting(request -> request.substring(0, request.indexOf(' ')))
        .containsExactlyInAnyOrder("POST", "POST", "PATCH");

    List<Event> events = api.client().v1().events().inNamespace("default").list().getItems();
    assertThat(events)
        .extracting(Event::getReason, Event::getCount)
        .containsExactlyInAnyOrder(tuple("DeviceTainted", 2), tuple("DeviceRecovered", 1));
    Event tainted =
        events.stream().filter(e -> e.getReason().equals("DeviceTainted")).findFirst().get();
    assertThat(tainted.getType()).isEqualTo("Warning");
    assertThat(tainted.getInvolvedObject().getKind()).isEqualTo("GpuNode");
    assertThat(tainted.getInvolvedObject().getName()).isEqualTo("node-a");
    assertThat(tainted.getInvolvedObject().getUid()).isEqualTo("uid-a");
    assertThat(tainted.getSource().getComponent()).isEqualTo("tessera-controller");
    assertThat(tainted.getReportingComponent()).isEqualTo("tessera-controller");
    assertThat(tainted.getMessage()).contains("gpu-0").contains("xid=79");
    assertThat(tainted.getFirstTimestamp()).isNotBlank();
    assertThat(tainted.getLastTimestamp()).isNotBlank();
  }

  @Test
  void aRepeatWhoseEventIsGoneIsCreatedAgainWithItsCount() throws Exception {
    var sick = ReportedNodesTest.unhealthy();
    try (var recorder = recorder()) {
      changes(recorder, NodeHealth.ALL_HEALTHY, sick);
      assertThat(recorder.awaitIdle(Duration.ofSeconds(10))).isTrue();
      // The Event expires (the API server's TTL) or an admin deletes it; the taint comes back.
      api.client().v1().events().inNamespace("default").delete();
      changes(recorder, sick, NodeHealth.ALL_HEALTHY);
      changes(recorder, NodeHealth.ALL_HEALTHY, sick);
      assertThat(recorder.awaitIdle(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(api.client().v1().events().inNamespace("default").list().getItems())
        .extracting(Event::getReason, Event::getCount)
        .containsExactlyInAnyOrder(tuple("DeviceTainted", 2), tuple("DeviceRecovered", 1));
  }
}
