package dev.tessera.controller.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's serialization as its client builds it by default, except that an object's {@code
 * metadata.managedFields} are skipped when read (and never written). The controller reads no
 * object's managedFields, yet every object it lists or watches carries them: 39 % of the JSON of a
 * plugin's Lease, whose renewals come 500 a second at 5,000 nodes (docs/benchmarks.md). Skipped, no
 * entry becomes a bean with a parsed time and a {@code fieldsV1} map, and they are skipped without
 * being parsed. An update without managedFields leaves the object's own as they are on the API
 * server.
 *
 * <p>Watch events of the kinds the controller watches most often (the plugins' Leases, renewed
 * every 10 s each, and Nodes) are read straight into their class ({@link DirectWatchEvents});
 * fabric8 reads any other event's object through a JSON tree first, which still holds them.
 */
public final class ControllerSerialization {
  /** The kinds the controller watches whose events are read without a JSON tree. */
  private static final List<Class<? extends HasMetadata>> WATCHED =
      List.of(Lease.class, Node.class);

  private ControllerSerialization() {}

  /** The controller's serialization. */
  public static KubernetesSerialization create() {
    JsonMapper mapper =
        JsonMapper.builderWithJackson2Defaults()
            .addModule(new Jackson2JdkTypesModule())
            .addMixIn(ObjectMeta.class, WithoutManagedFields.class)
            .addModule(DirectWatchEvents.module(WATCHED))
            .build();
    return new KubernetesSerialization(mapper, true);
  }

  @JsonIgnoreProperties({"managedFields"})
  private abstract static class WithoutManagedFields {}
}
