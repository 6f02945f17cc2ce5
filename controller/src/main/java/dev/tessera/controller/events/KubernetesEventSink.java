package dev.tessera.controller.events;

import dev.tessera.api.events.EventData;
import dev.tessera.api.events.EventSink;
import dev.tessera.api.events.EventWrite;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the Event core's decisions as core v1 Events: a create, or a merge patch of a repeat's
 * {@code count} and {@code lastTimestamp} (client-go patches the same fields), one request each; a
 * repeat whose Event expired meanwhile is created again. A failure is logged with the object's
 * identity and dropped. (The node plugin has its own copy of this adapter: the modules share only
 * the api.)
 */
public final class KubernetesEventSink implements EventSink {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventSink.class);

  private final KubernetesClient client;

  public KubernetesEventSink(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public void write(EventWrite write) {
    EventData event = write.event();
    switch (write) {
      case EventWrite.Create c -> create(event);
      case EventWrite.Increment i -> {
        try {
          var events = client.v1().events().inNamespace(event.namespace());
          var patch = new LinkedHashMap<String, Object>();
          patch.put("count", event.count());
          patch.put("lastTimestamp", time(event.lastTimestamp()));
          patch.put("message", event.message());
          // Through the Event's name and namespace alone: fabric8 reads the Event first when it
          // has no object to patch, a GET before every PATCH.
          events
              .resource(named(event))
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  client.getKubernetesSerialization().asJson(patch));
        } catch (KubernetesClientException e) {
          if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
            throw e;
          }
          create(event);
        }
      }
    }
  }

  private void create(EventData event) {
    try {
      client.v1().events().inNamespace(event.namespace()).resource(toEvent(event)).create();
    } catch (KubernetesClientException e) {
      // The same name again (a create retried after a lost reply): the Event is there.
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
    }
  }

  @Override
  public void failed(EventWrite write, RuntimeException cause) {
    EventData event = write.event();
    LOG.atWarn()
        .addKeyValue("object.kind", event.object().kind())
        .addKeyValue(uidKey(event), event.object().uid())
        .addKeyValue("object.namespace", event.object().namespace())
        .addKeyValue("object.name", event.object().name())
        .addKeyValue("reason", event.reason())
        .setCause(cause)
        .log("cannot write an Event; dropped");
  }

  /** A claim's UID under the key every claim log line uses. */
  private static String uidKey(EventData event) {
    return "ResourceClaim".equals(event.object().kind()) ? "claim.uid" : "object.uid";
  }

  private static Event named(EventData event) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(event.name())
        .withNamespace(event.namespace())
        .endMetadata()
        .build();
  }

  static Event toEvent(EventData event) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(event.name())
        .withNamespace(event.namespace())
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(event.object().apiVersion())
        .withKind(event.object().kind())
        .withNamespace(event.object().namespace().isEmpty() ? null : event.object().namespace())
        .withName(event.object().name())
        .withUid(event.object().uid().isEmpty() ? null : event.object().uid())
        .endInvolvedObject()
        .withType(event.type().apiValue())
        .withReason(event.reason())
        .withMessage(event.message())
        .withNewSource()
        .withComponent(event.source().component())
        .withHost(event.source().host().isEmpty() ? null : event.source().host())
        .endSource()
        .withReportingComponent(event.source().component())
        .withReportingInstance(event.source().host())
        .withCount(event.count())
        .withFirstTimestamp(time(event.firstTimestamp()))
        .withLastTimestamp(time(event.lastTimestamp()))
        .build();
  }

  private static String time(java.time.Instant at) {
    return at.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
