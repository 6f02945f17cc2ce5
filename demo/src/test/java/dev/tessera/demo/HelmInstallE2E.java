package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code helm install} of the chart into the local cluster with the images {@code hack/images}
 * builds, imported into the node's containerd ({@code imagePullPolicy: Never}): the node plugin
 * runs as a DaemonSet pod on the node, on a simulated driver root, and registers with the real
 * kubelet through the mounted plugin dirs.
 *
 * <p>Only that far: on the local cluster pods live in a private network namespace with no route to
 * the API server (it listens on the host's loopback), so neither app can reach it from a pod; the
 * controller is installed with no replicas and the webhook off. See deploy/README.md.
 */
class HelmInstallE2E {

  @Test
  void thePluginPodRegistersWithTheKubelet() throws Exception {
    Cluster cluster = Clusters.require();
    Path work = Files.createTempDirectory("tessera-helm-e2e");
    Path state = cluster.adminKubeconfig().getParent();
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                io.fabric8.kubernetes.client.Config.fromKubeconfig(
                    Files.readString(cluster.adminKubeconfig())))
            .build()) {
      Path images = work.resolve("images");
      sh(HelmChart.REPO.resolve("hack/images") + " " + images);
      for (String image : List.of("kubelet-plugin", "controller")) {
        sh(
            ". "
                + state.resolve("env")
                + " && ctr images import --local "
                + images.resolve(image + ".oci.tar"));
      }
      Path root = SimulatedNode.layOut(work.resolve("driver-root"), "H100-SXM5-80GB", 2);
      var install =
          new ArrayList<>(
              List.of(
                  "install",
                  HelmChart.RELEASE,
                  HelmChart.CHART.toString(),
                  "-n",
                  HelmChart.NAMESPACE,
                  "--create-namespace",
                  "--kubeconfig",
                  cluster.adminKubeconfig().toString()));
      for (String value :
          List.of(
              "plugin.image.pullPolicy=Never",
              "controller.image.pullPolicy=Never",
              "plugin.kubeletRootDir=" + cluster.registryDir().getParent(),
              "plugin.cdiDir=" + cluster.cdiDir(),
              "plugin.driverRoot=" + root,
              "plugin.metricsPort=-1",
              "hostNetwork=true",
              "controller.replicas=0",
              "controller.metricsPort=-1",
              "webhook.enabled=false")) {
        install.addAll(List.of("--set", value));
      }
      try {
        HelmChart.helm(install).orFail("helm install");
        await()
            .atMost(Duration.ofSeconds(120))
            .ignoreExceptions()
            .untilAsserted(
                () -> {
                  Pod pod = pluginPods(client).get(0);
                  assertThat(pod.getSpec().getNodeName()).isEqualTo(cluster.nodeName());
                  String log = client.pods().resource(pod).getLog();
                  assertThat(log).contains("registered with the kubelet");
                });
        System.out.println(
            "--- the plugin pod's log:\n"
                + client.pods().resource(pluginPods(client).get(0)).getLog());
      } finally {
        HelmChart.helm(
            List.of(
                "uninstall",
                HelmChart.RELEASE,
                "-n",
                HelmChart.NAMESPACE,
                "--wait",
                "--kubeconfig",
                cluster.adminKubeconfig().toString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> pluginPods(client).isEmpty());
        HelmChart.deleteNamespace(client);
      }
    } finally {
      TestFiles.deleteTree(work);
    }
  }

  private static List<Pod> pluginPods(KubernetesClient client) {
    return client
        .pods()
        .inNamespace(HelmChart.NAMESPACE)
        .withLabel("app.kubernetes.io/name", "tessera-kubelet-plugin")
        .list()
        .getItems();
  }

  private static void sh(String command) throws Exception {
    Process p = new ProcessBuilder("bash", "-c", command).inheritIO().start();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as(command).isTrue();
    assertThat(p.exitValue()).as(command).isZero();
  }
}
