package dev.tessera.controller.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's serialization as its client builds it by default, except that an object's {@code
 * metadata.managedFields} are skipped when read (and never written). The controller reads no
 * object's managedFields, yet every object it lists or watches carries them: 39 % of the JSON of a
 * plugin's Lease, whose renewals come 500 a second at 5,000 nodes (docs/benchmarks.md). Skipped, no
 * entry becomes a bean with a parsed time and a {@code fieldsV1} map; where fabric8 reads an object
 * through a JSON tree first (a watch event's object, decoded by its kind), the tree still holds
 * them. An update without managedFields leaves the object's own as they are on the API server.
 */
public final class ControllerSerialization {
  private ControllerSerialization() {}

  /** The controller's serialization. */
  public static KubernetesSerialization create() {
    JsonMapper mapper =
        JsonMapper.builderWithJackson2Defaults()
            .addModule(new Jackson2JdkTypesModule())
            .addMixIn(ObjectMeta.class, WithoutManagedFields.class)
            .build();
    return new KubernetesSerialization(mapper, true);
  }

  @JsonIgnoreProperties({"managedFields"})
  private abstract static class WithoutManagedFields {}
}
