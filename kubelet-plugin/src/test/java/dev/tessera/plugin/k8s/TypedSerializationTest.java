package dev.tessera.plugin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class TypedSerializationTest {
  /** A prepared claim: opaque parameters in spec and allocation, device data in status. */
  private static final String CLAIM =
      """
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
       "metadata":{"name":"c","namespace":"default","uid":"u-1","resourceVersion":"7"},
       "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.tessera.dev"}}],
        "config":[{"requests":["gpu"],"opaque":{"driver":"gpu.tessera.dev",
         "parameters":{"apiVersion":"gpu.tessera.dev/v1alpha1","kind":"GpuConfig",
          "sharing":{"strategy":"TimeSlicing","timeSlicing":{"interval":"Long"}}}}}]}},
       "status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.tessera.dev",
         "pool":"node-a","device":"gpu-0"}]}},
        "devices":[{"driver":"gpu.tessera.dev","pool":"node-a","device":"gpu-0",
         "data":{"uuid":"GPU-0","memory":"80Gi"}}]}}
      """;

  private final KubernetesSerialization typed = TypedSerialization.create();
  private final KubernetesSerialization fabric8Default = new KubernetesSerialization();

  @Test
  void aClaimDecodesAndEncodesAsWithFabric8sDefault() {
    ResourceClaim claim = typed.unmarshal(CLAIM, ResourceClaim.class);

    assertThat(claim).isEqualTo(fabric8Default.unmarshal(CLAIM, ResourceClaim.class));
    assertThat(typed.asJson(claim)).isEqualTo(fabric8Default.asJson(claim));
    assertThat(claim.getSpec().getDevices().getConfig().get(0).getOpaque().getParameters())
        .isInstanceOfSatisfying(
            GenericKubernetesResource.class,
            config -> {
              assertThat(config.getKind()).isEqualTo("GpuConfig");
              assertThat(config.getAdditionalProperties()).containsKey("sharing");
            });
  }

  @Test
  void aFabric8KindInAnUntypedFieldIsAGenericObjectNotFabric8sClass() {
    String configMap = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"b\"}}";

    assertThat(fabric8Default.unmarshal(configMap, KubernetesResource.class))
        .isInstanceOf(ConfigMap.class);
    assertThat(typed.unmarshal(configMap, KubernetesResource.class))
        .isInstanceOfSatisfying(
            GenericKubernetesResource.class, r -> assertThat(r.getKind()).isEqualTo("ConfigMap"));
  }
}
