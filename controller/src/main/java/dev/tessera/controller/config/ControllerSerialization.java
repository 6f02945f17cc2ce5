package dev.tessera.controller.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's serialization as its client builds it by default, except that an object's {@code
 * metadata.managedFields} are skipped when read (and never written). The controller reads no
 * object's managedFields, yet every object it lists or watches carries them, and every plugin Lease
 * renewal (500 a second at 5,000 nodes) comes as a watch event whose managedFields are a third of
 * its JSON and most of its decoding: each entry a bean, a timestamp parsed, and a {@code fieldsV1}
 * tree of maps. Skipped, the parser passes over them without building anything
 * (docs/benchmarks.md). An update without managedFields leaves the object's own as they are on the
 * API server.
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
