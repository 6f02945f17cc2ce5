package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.DriverNames;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Tessera installed with {@code helm install} into the local cluster, with the images {@code
 * hack/images} builds imported into the node's containerd ({@code imagePullPolicy: Never}): the
 * node plugin as a DaemonSet pod on a simulated driver root, registered with the real kubelet; the
 * controller as a Deployment publishing the node's slices; a scenario's pods get GPUs. Then a
 * rolling upgrade of the DaemonSet (a new plugin pod beside the old one, sockets of its own) while
 * those pods hold prepared claims: they keep running, and a new claim works after it.
 *
 * <p>Pods run on the node's host network, which on the local cluster is its private network
 * namespace; they reach the API server over the cluster's host link ({@code apiServer.host}), and
 * the API server reaches the controller's webhook over it ({@code webhook.url}: no kube-proxy).
 */
class HelmInstallE2E {

  @Test
  void tesseraInstalledWithHelmServesPodsAndSurvivesARollingUpgrade() throws Exception {
    Cluster cluster = Clusters.require();
    Path work = Files.createTempDirectory("tessera-helm-e2e");
    Path state = cluster.adminKubeconfig().getParent();
    var config =
        io.fabric8.kubernetes.client.Config.fromKubeconfig(
            Files.readString(cluster.adminKubeconfig()));
    URI apiServer = URI.create(config.getMasterUrl());
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      Path images = work.resolve("images");
      sh(HelmChart.REPO.resolve("hack/images") + " " + images);
      for (String image : List.of("kubelet-plugin", "controller")) {
        sh(
            ". "
                + state.resolve("env")
                + " && ctr images import --local "
                + images.resolve(image + ".oci.tar"));
      }
      Path root = SimulatedNode.layOut(work.resolve("driver-root"), "H100-SXM5-80GB", 4);
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
              "plugin.driverRootWritable=true", // the simulator's MIG state
              "plugin.metricsPort=-1",
              "hostNetwork=true",
              "apiServer.host=" + apiServer.getHost(),
              "apiServer.port=" + apiServer.getPort(),
              "controller.replicas=1",
              "controller.metricsPort=-1",
              // No kube-proxy: the API server calls the controller pod on the node's host network.
              "webhook.url=https://" + cluster.hostNetworkAddress() + ":8443/validate")) {
        install.addAll(List.of("--set", value));
      }
      // DeviceClasses another test applied without Helm would block the release owning them.
      try (var in =
          Files.newInputStream(HelmChart.REPO.resolve("deploy/manifests/deviceclasses.yaml"))) {
        client.load(in).delete();
      }
      try {
        HelmChart.helm(install).orFail("helm install");
        Pod firstPlugin = awaitOnePluginPodRegistered(client, cluster, null);
        System.out.println(
            "--- the plugin pod's log:\n" + client.pods().resource(firstPlugin).getLog());
        // The in-cluster controller publishes the node's pool from the GpuNode the pod reported.
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> completePool(client, cluster.nodeName()));
        // The webhook, served by the controller pod with the chart's certificate, refuses a bad
        // config.
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () ->
                    assertThatThrownBy(() -> client.resource(badClaim()).create())
                        .hasMessageContaining("admission webhook")
                        .hasMessageContaining("sharing.strategy: unsupported value \"Sometimes\""));

        apply(client, "01-gpu-per-pod");
        var first = gpus(client, "gpu-pod-1");
        var second = gpus(client, "gpu-pod-2");
        assertThat(first).hasSize(1);
        assertThat(second).hasSize(1).doesNotContainAnyElementsOf(first);
        Map<String, String> started = startTimes(client, "gpu-pod-1", "gpu-pod-2");

        // Rolling upgrade: a changed pod template rolls the DaemonSet, new pod first (maxSurge 1).
        HelmChart.helm(
                List.of(
                    "upgrade",
                    HelmChart.RELEASE,
                    HelmChart.CHART.toString(),
                    "-n",
                    HelmChart.NAMESPACE,
                    "--reuse-values",
                    "--set",
                    "plugin.podAnnotations.tessera\\.dev/rollout=second",
                    "--kubeconfig",
                    cluster.adminKubeconfig().toString()))
            .orFail("helm upgrade");
        Pod secondPlugin =
            awaitOnePluginPodRegistered(client, cluster, firstPlugin.getMetadata().getUid());
        System.out.println(
            "--- the upgraded plugin pod's log:\n" + client.pods().resource(secondPlugin).getLog());

        // The pods holding prepared claims ran through it, untouched.
        assertThat(startTimes(client, "gpu-pod-1", "gpu-pod-2")).isEqualTo(started);
        // And a new claim works with the new plugin: two GPUs, the two the first pods left.
        apply(client, "02-two-gpus-one-claim");
        var both = gpus(client, "two-gpu-pod");
        assertThat(both)
            .hasSize(2)
            .doesNotContainAnyElementsOf(first)
            .doesNotContainAnyElementsOf(second);

        delete(client, "02-two-gpus-one-claim");
        delete(client, "01-gpu-per-pod");
        await()
            .atMost(Duration.ofSeconds(120))
            .untilAsserted(() -> assertThat(ourCdiSpecs(cluster)).isEmpty());
      } finally {
        delete(client, "02-two-gpus-one-claim");
        delete(client, "01-gpu-per-pod");
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

  /** A claim whose Tessera config names a sharing strategy that does not exist. */
  private static ResourceClaim badClaim() {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName("bad-strategy")
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName("gpu")
        .withNewExactly()
        .withDeviceClassName("gpu.tessera.dev")
        .endExactly()
        .endRequest()
        .addNewConfig()
        .withRequests("gpu")
        .withNewOpaque()
        .withDriver("gpu.tessera.dev")
        .withParameters(
            Map.of(
                "apiVersion",
                "gpu.tessera.dev/v1alpha1",
                "kind",
                "GpuConfig",
                "sharing",
                Map.of("strategy", "Sometimes")))
        .endOpaque()
        .endConfig()
        .endDevices()
        .endSpec()
        .build();
  }

  /** Waits until exactly one plugin pod runs, is not {@code notUid}, and registered. */
  private static Pod awaitOnePluginPodRegistered(
      KubernetesClient client, Cluster cluster, String notUid) {
    await()
        .atMost(Duration.ofSeconds(150))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              List<Pod> pods = pluginPods(client);
              assertThat(pods).hasSize(1);
              Pod pod = pods.get(0);
              assertThat(pod.getMetadata().getUid()).isNotEqualTo(notUid);
              assertThat(pod.getSpec().getNodeName()).isEqualTo(cluster.nodeName());
              assertThat(client.pods().resource(pod).getLog())
                  .contains("registered with the kubelet");
            });
    return pluginPods(client).get(0);
  }

  private static boolean completePool(KubernetesClient client, String node) {
    var slices =
        client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
            .filter(s -> DriverNames.DEFAULT_DRIVER.equals(s.getSpec().getDriver()))
            .filter(s -> node.equals(s.getSpec().getPool().getName()))
            .toList();
    return !slices.isEmpty()
        && slices.size() == slices.get(0).getSpec().getPool().getResourceSliceCount();
  }

  private static void apply(KubernetesClient client, String scenario) throws Exception {
    try (var in = Files.newInputStream(scenarioFile(scenario))) {
      client.load(in).forceConflicts().serverSideApply();
    }
  }

  private static void delete(KubernetesClient client, String scenario) throws Exception {
    try (var in = Files.newInputStream(scenarioFile(scenario))) {
      client.load(in).withGracePeriod(1).delete();
    }
  }

  private static Path scenarioFile(String scenario) {
    return HelmChart.REPO.resolve("demo/scenarios").resolve(scenario).resolve("scenario.yaml");
  }

  /** The GPU numbers a pod listed, once it printed {@code done}. */
  private static List<String> gpus(KubernetesClient client, String pod) {
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> log(client, pod).lines().anyMatch("done"::equals));
    String log = log(client, pod);
    System.out.printf("--- %s saw:%n%s", pod, log);
    return TesseraOnNode.gpus(log);
  }

  private static String log(KubernetesClient client, String pod) {
    String log = client.pods().inNamespace("default").withName(pod).getLog();
    return log == null ? "" : log;
  }

  /** Each pod's container start time; a restarted container would have a new one. */
  private static Map<String, String> startTimes(KubernetesClient client, String... pods) {
    return Stream.of(pods)
        .collect(
            Collectors.toMap(
                p -> p,
                p -> {
                  ContainerStatus status =
                      client
                          .pods()
                          .inNamespace("default")
                          .withName(p)
                          .get()
                          .getStatus()
                          .getContainerStatuses()
                          .get(0);
                  assertThat(status.getState().getRunning()).as(p + " running").isNotNull();
                  return status.getState().getRunning().getStartedAt()
                      + " restarts="
                      + status.getRestartCount();
                }));
  }

  private static List<String> ourCdiSpecs(Cluster cluster) throws Exception {
    try (Stream<Path> files = Files.list(cluster.cdiDir())) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("k8s." + DriverNames.DEFAULT_DRIVER))
          .toList();
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
