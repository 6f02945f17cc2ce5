package dev.tessera.plugin.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client the plugin's context builds decodes untyped fields without fabric8's list of model
 * kinds (decision 42). Here fabric8's model jars, and their list, are on the class path, so a
 * client built with fabric8's default serialization would decode a ConfigMap as its class.
 */
class PluginClientIT {
  @RegisterExtension final SimulatedPlugin node = new SimulatedPlugin("H100-SXM5-80GB", 1);

  @Test
  void thePluginsClientDecodesAFabric8KindInAnUntypedFieldAsAGenericObject() {
    var serialization =
        node.plugin().context().getBean(KubernetesClient.class).getKubernetesSerialization();

    assertThat(
            serialization.unmarshal(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"b\"}}",
                KubernetesResource.class))
        .isInstanceOf(GenericKubernetesResource.class);
    assertThat(
            serialization.unmarshal(
                "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\"}",
                ResourceClaim.class))
        .isInstanceOf(ResourceClaim.class);
  }
}
