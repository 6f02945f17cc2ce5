package dev.tessera.plugin.k8s;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's serialization as its client builds it by default, but without looking up every model
 * class it ships. A field that may hold any Kubernetes object (a claim's opaque {@code parameters}
 * and device {@code data}, among others) is decoded by kind; to know the kinds, the default
 * serialization loads and makes one of each of the 351 kinds fabric8 lists when it first builds the
 * decoder of such a field (the first claim it decodes): ~580 classes and ~10 MiB of the plugin's
 * RSS (docs/benchmarks.md). The plugin reads and writes only typed objects (claims, slices, Leases,
 * Events, pods, GpuNodes), and what such a field holds for it is a Tessera config or device data,
 * which no fabric8 class describes: it is decoded as it was, as a generic object. The only
 * difference: a fabric8 kind inside such a field (a {@code ConfigMap} as a claim's parameters) is a
 * generic object too, not fabric8's class, and the config decoder refuses it as before.
 */
public final class TypedSerialization {
  private TypedSerialization() {}

  /** A serialization that decodes the kinds of untyped fields as generic objects. */
  public static KubernetesSerialization create() {
    JsonMapper mapper =
        JsonMapper.builderWithJackson2Defaults().addModule(new Jackson2JdkTypesModule()).build();
    return new KubernetesSerialization(mapper, false);
  }
}
