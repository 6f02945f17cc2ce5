package dev.tessera.controller.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * Every watch event reads into what fabric8 alone makes of it; the events of the given kinds in the
 * API server's shape without fabric8's deserializer, every other through it.
 */
class DirectWatchEventsTest {
  private static final String METADATA =
      """
      "metadata":{"name":"tessera-node-a","namespace":"kube-node-lease","uid":"u-1",
        "resourceVersion":"42","labels":{"a":"b"},
        "managedFields":[{"manager":"tessera-kubelet-plugin","operation":"Update",
          "apiVersion":"coordination.k8s.io/v1","time":"2026-12-04T06:00:00Z","fieldsType":"FieldsV1",
          "fieldsV1":{"f:spec":{"f:renewTime":{}}}}]}""";
  private static final String LEASE_SPEC =
      """
      "spec":{"holderIdentity":"plugin-a","leaseDurationSeconds":40,
        "renewTime":"2026-12-04T06:00:00.000000Z","unknownField":[1,{"x":null}]}""";
  private static final String LEASE =
      "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
          + METADATA
          + ","
          + LEASE_SPEC
          + "}";
  private static final String NODE =
      """
      {"kind":"Node","apiVersion":"v1","metadata":{"name":"node-a","uid":"n-1",
        "labels":{"tessera.dev/offering":"exclusive"}},
       "status":{"capacity":{"cpu":"8"},"conditions":[{"type":"Ready","status":"True"}]}}""";

  private final AtomicInteger fabric8Reads = new AtomicInteger();
  private final KubernetesSerialization direct = serialization(true);
  private final KubernetesSerialization fabric8Only = serialization(false);

  @Test
  void aLeaseRenewalAsTheApiServerSendsItIsReadWithoutFabric8sDeserializer() {
    WatchEvent event = readBoth("{\"type\":\"MODIFIED\",\"object\":" + LEASE + "}");

    assertThat(fabric8Reads).hasValue(0);
    var lease = (Lease) event.getObject();
    assertThat(lease.getKind()).isEqualTo("Lease");
    assertThat(lease.getApiVersion()).isEqualTo("coordination.k8s.io/v1");
    assertThat(lease.getMetadata().getManagedFields()).hasSize(1);
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("plugin-a");
    assertThat(lease.getSpec().getAdditionalProperties()).containsKey("unknownField");
  }

  @Test
  void nodeEventsAndBookmarksAreReadStraightToo() {
    assertThat(readBoth("{\"type\":\"ADDED\",\"object\":" + NODE + "}").getObject())
        .isInstanceOf(Node.class);
    WatchEvent bookmark =
        readBoth(
            """
            {"type":"BOOKMARK","object":{"kind":"Lease","apiVersion":"coordination.k8s.io/v1",
              "metadata":{"resourceVersion":"12746",
                "annotations":{"k8s.io/initial-events-end":"true"}}}}""");

    assertThat(fabric8Reads).hasValue(0);
    assertThat(((Lease) bookmark.getObject()).getMetadata().getResourceVersion())
        .isEqualTo("12746");
  }

  @Test
  void otherKindsAndAnExpiredWatchGoToFabric8() {
    assertThat(
            readBoth(
                    """
                    {"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1",
                      "metadata":{"name":"c"},"data":{"k":"v"}}}""")
                .getObject())
        .isInstanceOf(ConfigMap.class);
    assertThat(
            readBoth(
                    """
                    {"type":"MODIFIED","object":{"kind":"GpuNode","apiVersion":"tessera.dev/v1alpha1",
                      "metadata":{"name":"node-a"},"spec":{"gpus":[{"index":0}]}}}""")
                .getObject())
        .isInstanceOf(GenericKubernetesResource.class);
    assertThat(
            readBoth(
                    """
                    {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},
                      "status":"Failure","message":"too old resource version: 1 (42)",
                      "reason":"Expired","code":410}}""")
                .getObject())
        .isInstanceOf(Status.class);

    assertThat(fabric8Reads).hasValue(3);
  }

  @Test
  void anEventInAnotherShapeIsReadAsFabric8ReadsIt() {
    // The object before the type; apiVersion before kind; a kind with a foreign apiVersion;
    // a type that is not a string; something after the object.
    readBoth("{\"object\":" + LEASE + ",\"type\":\"MODIFIED\"}");
    readBoth(
        "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"coordination.k8s.io/v1\","
            + "\"kind\":\"Lease\","
            + METADATA
            + "}}");
    readBoth(
        "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Lease\",\"apiVersion\":\"example.com/v1\","
            + METADATA
            + "}}");
    readBoth("{\"type\":7,\"object\":" + LEASE + "}");
    assertThat(fabric8Reads).hasValue(4);

    WatchEvent trailing =
        readBoth("{\"type\":\"DELETED\",\"object\":" + LEASE + ",\"extra\":{\"n\":[1,2]}}");
    assertThat(fabric8Reads).hasValue(4);
    assertThat(trailing.getAdditionalProperties()).containsKey("extra");
  }

  /** Reads {@code json} both ways, asserts the two equal, and returns the direct reading. */
  private WatchEvent readBoth(String json) {
    int before = fabric8Reads.get();
    WatchEvent expected = fabric8Only.unmarshal(json, WatchEvent.class);
    fabric8Reads.set(before);
    WatchEvent read = direct.unmarshal(json, WatchEvent.class);
    assertThat(read).isEqualTo(expected);
    return read;
  }

  /** fabric8's default serialization; its watch events wrapped, when {@code direct}. */
  private KubernetesSerialization serialization(boolean direct) {
    var counting =
        new SimpleModule("counting")
            .setDeserializerModifier(
                new ValueDeserializerModifier() {
                  @Override
                  public ValueDeserializer<?> modifyDeserializer(
                      DeserializationConfig config,
                      BeanDescription.Supplier bean,
                      ValueDeserializer<?> deserializer) {
                    if (bean.getBeanClass() != WatchEvent.class) {
                      return deserializer;
                    }
                    var fabric8s = new Counting(deserializer, fabric8Reads);
                    return direct
                        ? DirectWatchEvents.wrapping(fabric8s, List.of(Lease.class, Node.class))
                        : fabric8s;
                  }
                });
    return new KubernetesSerialization(
        JsonMapper.builderWithJackson2Defaults()
            .addModule(new Jackson2JdkTypesModule())
            .addModule(counting)
            .build(),
        true);
  }

  /** fabric8's deserializer of watch events, counting its reads. */
  private static final class Counting extends DelegatingDeserializer {
    private final AtomicInteger reads;

    Counting(ValueDeserializer<?> delegatee, AtomicInteger reads) {
      super(delegatee);
      this.reads = reads;
    }

    @Override
    protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> newDelegatee) {
      return new Counting(newDelegatee, reads);
    }

    @Override
    public Object deserialize(tools.jackson.core.JsonParser p, DeserializationContext ctxt) {
      reads.incrementAndGet();
      return super.deserialize(p, ctxt);
    }
  }
}
