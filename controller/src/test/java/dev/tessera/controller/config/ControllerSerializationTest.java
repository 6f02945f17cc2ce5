package dev.tessera.controller.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import org.junit.jupiter.api.Test;

/**
 * The controller reads objects without their managedFields and keeps everything else of them: in a
 * watch event (the object decoded by its kind), a typed read and a generic one.
 */
class ControllerSerializationTest {
  private static final String LEASE =
      """
      {"kind":"Lease","apiVersion":"coordination.k8s.io/v1",
       "metadata":{"name":"tessera-node-a","namespace":"kube-node-lease","uid":"u-1",
        "resourceVersion":"42","labels":{"a":"b"},
        "managedFields":[{"manager":"tessera-kubelet-plugin","operation":"Update",
          "apiVersion":"coordination.k8s.io/v1","time":"2026-12-04T06:00:00Z","fieldsType":"FieldsV1",
          "fieldsV1":{"f:spec":{"f:holderIdentity":{},"f:leaseDurationSeconds":{},"f:renewTime":{}}}}]},
       "spec":{"holderIdentity":"plugin-a","leaseDurationSeconds":40,
        "renewTime":"2026-12-04T06:00:00.000000Z"}}""";

  private final io.fabric8.kubernetes.client.utils.KubernetesSerialization serialization =
      ControllerSerialization.create();

  @Test
  void aWatchEventsObjectIsReadWithoutItsManagedFields() {
    WatchEvent event =
        serialization.unmarshal(
            "{\"type\":\"MODIFIED\",\"object\":" + LEASE + "}", WatchEvent.class);
    assertThat(event.getObject()).isInstanceOf(Lease.class);
    var lease = (Lease) event.getObject();
    assertThat(lease.getMetadata().getManagedFields()).isEmpty();
    assertThat(lease.getMetadata().getAdditionalProperties()).isEmpty();
    assertThat(lease.getMetadata().getName()).isEqualTo("tessera-node-a");
    assertThat(lease.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(lease.getMetadata().getLabels()).containsEntry("a", "b");
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("plugin-a");
    assertThat(lease.getSpec().getRenewTime().toInstant()).hasToString("2026-12-04T06:00:00Z");
  }

  @Test
  void typedAndGenericReadsDropOnlyTheManagedFields() {
    Lease typed = serialization.unmarshal(LEASE, Lease.class);
    assertThat(typed.getMetadata().getManagedFields()).isEmpty();
    assertThat(typed.getMetadata().getUid()).isEqualTo("u-1");

    GenericKubernetesResource generic =
        serialization.unmarshal(LEASE, GenericKubernetesResource.class);
    assertThat(generic.getMetadata().getManagedFields()).isEmpty();
    assertThat(generic.getMetadata().getUid()).isEqualTo("u-1");
    assertThat(generic.getAdditionalProperties()).containsKey("spec");
  }

  @Test
  void managedFieldsAreNeverWritten() {
    Lease lease = serialization.unmarshal(LEASE, Lease.class);
    lease
        .getMetadata()
        .getManagedFields()
        .add(new ManagedFieldsEntryBuilder().withManager("someone").build());
    assertThat(serialization.asJson(lease)).doesNotContain("managedFields").contains("plugin-a");
  }
}
