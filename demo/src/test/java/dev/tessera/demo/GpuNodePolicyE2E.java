package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart's RBAC and ValidatingAdmissionPolicy on the real API server: acting as the node
 * plugin's service account (impersonated, with the node claim a pod-bound token carries), a plugin
 * may create and update the GpuNode of its own node and its status, and no other GpuNode.
 */
class GpuNodePolicyE2E {
  private static final String PLUGIN_SA = "tessera-kubelet-plugin";
  private static final ResourceDefinitionContext GPU_NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup("gpu.tessera.dev")
          .withVersion("v1alpha1")
          .withKind("GpuNode")
          .withPlural("gpunodes")
          .withNamespaced(false)
          .build();
  private static final Set<String> KINDS =
      Set.of(
          "CustomResourceDefinition",
          "ServiceAccount",
          "ClusterRole",
          "ClusterRoleBinding",
          "Role",
          "RoleBinding",
          "ValidatingAdmissionPolicy",
          "ValidatingAdmissionPolicyBinding");
  private static KubernetesClient admin;
  private static List<HasMetadata> applied;
  private static String kubeconfig;

  @BeforeAll
  static void install() throws Exception {
    Cluster cluster = Clusters.requireApiServer();
    kubeconfig = Files.readString(cluster.adminKubeconfig());
    admin = cluster.adminClient();
    HelmChart.createNamespace(admin);
    var args =
        List.of(
            "template",
            HelmChart.RELEASE,
            HelmChart.CHART.toString(),
            "-n",
            HelmChart.NAMESPACE,
            "--include-crds");
    applied =
        HelmChart.parse(HelmChart.helm(args).orFail("helm template").output()).stream()
            .filter(o -> KINDS.contains(o.getKind()))
            .filter(o -> !o.getMetadata().getName().contains("controller"))
            .toList();
    for (HasMetadata object : applied) {
      admin.resource(object).forceConflicts().serverSideApply();
    }
  }

  @AfterAll
  static void uninstall() {
    if (admin == null) {
      return;
    }
    for (String name : List.of("node-a", "node-b")) {
      admin.genericKubernetesResources(GPU_NODES).withName(name).delete();
    }
    if (applied != null) {
      applied.stream()
          .filter(o -> !o.getKind().equals("CustomResourceDefinition"))
          .forEach(o -> admin.resource(o).delete());
    }
    HelmChart.deleteNamespace(admin);
    admin.close();
  }

  @Test
  void aPluginWritesOnlyItsOwnNodesGpuNode() {
    try (var pluginOnA =
            plugin(Map.of("authentication.kubernetes.io/node-name", List.of("node-a")));
        var pluginWithoutNode = plugin(Map.of())) {
      var onA = pluginOnA.genericKubernetesResources(GPU_NODES);
      // The policy takes effect a moment after it is created.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThatThrownBy(() -> onA.resource(gpuNode("node-b")).create())
                      .isInstanceOf(KubernetesClientException.class)
                      .hasMessageContaining("may write only the GpuNode node-a, not node-b"));

      GenericKubernetesResource own = onA.resource(gpuNode("node-a")).create();
      own.setAdditionalProperty("status", Map.of("gpuCount", 2, "product", "H100"));
      assertThat(onA.resource(own).updateStatus().getAdditionalProperties().get("status"))
          .isNotNull();

      // Applied, not created: while the policy was not yet in effect, the wait above may have
      // created node-b as the plugin (RBAC alone allows it).
      admin.genericKubernetesResources(GPU_NODES).resource(gpuNode("node-b")).serverSideApply();
      GenericKubernetesResource other = onA.withName("node-b").get();
      other.setAdditionalProperty("status", Map.of("gpuCount", 8));
      assertThatThrownBy(() -> onA.resource(other).updateStatus())
          .hasMessageContaining("may write only the GpuNode node-a");
      assertThatThrownBy(() -> onA.withName("node-b").delete())
          .as("RBAC gives the plugin no delete")
          .hasMessageContaining("forbidden");

      assertThatThrownBy(
              () ->
                  pluginWithoutNode
                      .genericKubernetesResources(GPU_NODES)
                      .resource(gpuNode("node-c"))
                      .create())
          .hasMessageContaining("bound to a pod on a node");
    }
  }

  private static KubernetesClient plugin(Map<String, List<String>> extra) {
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setImpersonateUsername("system:serviceaccount:" + HelmChart.NAMESPACE + ":" + PLUGIN_SA);
    config.setImpersonateGroups(
        "system:serviceaccounts",
        "system:serviceaccounts:" + HelmChart.NAMESPACE,
        "system:authenticated");
    // Extra keys travel in header names (Impersonate-Extra-<key>), where "/" must be
    // percent-encoded;
    // the API server decodes them.
    var encoded = new java.util.HashMap<String, List<String>>();
    extra.forEach((key, value) -> encoded.put(key.replace("/", "%2F"), value));
    config.setImpersonateExtras(encoded);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private static GenericKubernetesResource gpuNode(String name) {
    var node =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("gpu.tessera.dev/v1alpha1")
            .withKind("GpuNode")
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .build();
    node.setAdditionalProperty("spec", Map.of("nodeName", name));
    return node;
  }
}
