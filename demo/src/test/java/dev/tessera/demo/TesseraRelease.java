package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Tessera installed with {@code helm install} into the local cluster by {@code
 * hack/cluster/install-tessera}, from the images {@code hack/images} builds ({@link TesseraImages},
 * {@code imagePullPolicy: Never}): the node plugin as the DaemonSet's pod on a simulated driver
 * root (mounted at /driver-root in its container, so the CDI specs it writes must translate to the
 * host's paths), the controller as the Deployment's pod, the chart's DeviceClasses and webhook.
 *
 * <p>Pods run on the node's host network, which on the local cluster is its private network
 * namespace; they reach the API server over the cluster's host link ({@code apiServer.host}), and
 * the API server reaches the controller's webhook over it ({@code webhook.url}: no kube-proxy).
 * Closing uninstalls the release and waits until its pods and namespace are gone.
 */
final class TesseraRelease implements TesseraDeployment {
  private static final int CONTROLLER_METRICS_PORT = 8080;

  private final Cluster cluster;
  private final KubernetesClient client;
  private final Path driverRoot;
  private final List<String> restartsExpected = new ArrayList<>();

  private TesseraRelease(Cluster cluster, KubernetesClient client, Path driverRoot) {
    this.cluster = cluster;
    this.client = client;
    this.driverRoot = driverRoot;
  }

  /**
   * Installs Tessera with {@code hack/cluster/install-tessera} (what the README's quickstart runs:
   * the images imported, {@code helm install} with the local cluster's values) on {@code
   * driverRoot}, with quicker leases and resyncs; waits until the plugin pod has registered.
   */
  static TesseraRelease install(Cluster cluster, KubernetesClient client, Path driverRoot)
      throws Exception {
    return install(cluster, client, driverRoot, List.of());
  }

  /** The same, with Helm values ({@code key=value}) set after the tests' own. */
  static TesseraRelease install(
      Cluster cluster, KubernetesClient client, Path driverRoot, List<String> helmValues)
      throws Exception {
    HelmChart.helm(List.of("version", "--short")).orFail("helm version"); // skips without Helm
    Path images = TesseraImages.build();
    var values = new ArrayList<String>();
    for (String value :
        List.of(
            "plugin.leaseDuration=" + TesseraOnNode.PLUGIN_LEASE,
            "plugin.env.TESSERA_HEALTH_RECOVERY=" + TesseraOnNode.HEALTH_RECOVERY,
            "plugin.env.TESSERA_METRICS_PERIOD=" + TesseraOnNode.METRICS_PERIOD,
            "plugin.env.TESSERA_METRICS_CLAIM_REFRESH=" + TesseraOnNode.METRICS_CLAIM_REFRESH,
            "controller.metricsPort=" + CONTROLLER_METRICS_PORT,
            "controller.leaseGrace=" + TesseraOnNode.CONTROLLER_LEASE_GRACE,
            "controller.electionLeaseDuration=" + TesseraOnNode.CONTROLLER_ELECTION_LEASE,
            "controller.env.TESSERA_CONTROLLER_RESYNC=" + TesseraOnNode.CONTROLLER_RESYNC)) {
      values.addAll(List.of("--set", value));
    }
    for (String value : helmValues) {
      values.addAll(List.of("--set", value));
    }
    var release = new TesseraRelease(cluster, client, driverRoot);
    try {
      var builder = cluster.installCommand(driverRoot, images, values);
      Process install = ProcessOutput.start(builder);
      if (!install.waitFor(6, TimeUnit.MINUTES)) {
        // Its helm install must not race the uninstall below.
        install.descendants().forEach(ProcessHandle::destroyForcibly);
        install.destroyForcibly().waitFor();
        fail("installing Tessera (" + builder.command().get(0) + ") did not finish in 6 minutes");
      }
      assertThat(install.exitValue()).as(builder.command().get(0) + "'s exit code").isZero();
      Pod plugin = release.awaitOnePluginPodRegistered(null);
      System.out.println("--- the plugin pod's log:\n" + client.pods().resource(plugin).getLog());
    } catch (Exception | AssertionError e) {
      try {
        release.close();
      } catch (Exception | AssertionError cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    return release;
  }

  /** {@code helm upgrade --reuse-values} with more values. */
  void upgrade(String... values) throws IOException, InterruptedException {
    var upgrade =
        new ArrayList<>(
            List.of(
                "upgrade",
                HelmChart.RELEASE,
                HelmChart.CHART.toString(),
                "-n",
                HelmChart.NAMESPACE,
                "--reuse-values",
                "--kubeconfig",
                cluster.adminKubeconfig().toString()));
    for (String value : values) {
      upgrade.addAll(List.of("--set", value));
    }
    HelmChart.helm(upgrade).orFail("helm upgrade");
    awaitNewControllerLeading();
  }

  /**
   * After an upgrade, until the controller's rollout is done and one of its new pods holds the
   * election Lease: before that, what a test does next may be seen by a controller about to go, or
   * by none (on kind the chart's two replicas hand over; the local cluster runs one).
   */
  private void awaitNewControllerLeading() {
    await()
        .atMost(Duration.ofSeconds(150))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              var deployment =
                  client
                      .apps()
                      .deployments()
                      .inNamespace(HelmChart.NAMESPACE)
                      .withName("tessera-controller")
                      .require();
              var status = deployment.getStatus();
              int want = deployment.getSpec().getReplicas();
              assertThat(status.getObservedGeneration())
                  .isEqualTo(deployment.getMetadata().getGeneration());
              assertThat(status.getUpdatedReplicas()).isEqualTo(want);
              assertThat(status.getReadyReplicas()).isEqualTo(want);
              assertThat(status.getReplicas()).isEqualTo(want); // no old pod left
              String leader = leader();
              assertThat(
                      client
                          .pods()
                          .inNamespace(HelmChart.NAMESPACE)
                          .withLabel("app.kubernetes.io/name", "tessera-controller")
                          .list()
                          .getItems()
                          .stream()
                          .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                          .map(p -> p.getMetadata().getName()))
                  .contains(leader);
            });
  }

  /** Waits until exactly one plugin pod runs on the node, is not {@code notUid}, and registered. */
  Pod awaitOnePluginPodRegistered(String notUid) {
    await()
        .atMost(Duration.ofSeconds(150))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              List<Pod> pods = pluginPods();
              assertThat(pods).hasSize(1);
              Pod pod = pods.get(0);
              assertThat(pod.getMetadata().getUid()).isNotEqualTo(notUid);
              assertThat(pod.getSpec().getNodeName()).isEqualTo(cluster.nodeName());
              assertThat(client.pods().resource(pod).getLog())
                  .contains("registered with the kubelet");
            });
    return pluginPods().get(0);
  }

  List<Pod> pluginPods() {
    return client
        .pods()
        .inNamespace(HelmChart.NAMESPACE)
        .withLabel("app.kubernetes.io/name", "tessera-kubelet-plugin")
        .list()
        .getItems();
  }

  @Override
  public String leaseNamespace() {
    return HelmChart.NAMESPACE;
  }

  /**
   * The leading controller's {@code /metrics} (the holder of the election Lease): at its pod's
   * host-network address where this host reaches it (the local cluster), else through the API
   * server's proxy to the pod (kind's pod network, which this host cannot reach; the local
   * cluster's API server, in the host's namespace, cannot reach the pods' host network there).
   */
  @Override
  public String controllerMetrics() throws IOException, InterruptedException {
    if (cluster.podsReachableFromHere()) {
      var url =
          URI.create(
              "http://"
                  + cluster.hostNetworkAddress()
                  + ":"
                  + CONTROLLER_METRICS_PORT
                  + "/metrics");
      try (HttpClient http = HttpClient.newHttpClient()) {
        return http.send(HttpRequest.newBuilder(url).build(), HttpResponse.BodyHandlers.ofString())
            .body();
      }
    }
    String leader = leader();
    return client.raw(
        "/api/v1/namespaces/%s/pods/%s:%d/proxy/metrics"
            .formatted(HelmChart.NAMESPACE, leader, CONTROLLER_METRICS_PORT));
  }

  /**
   * The newest plugin pod's {@code /prometheus}, on the port its log announces (each pod of a
   * rolling upgrade's surge has its own, so two side by side never mix up): reached like the
   * controller's metrics, directly where this host reaches the node's host network, else through
   * the API server's proxy to the pod.
   */
  @Override
  public String pluginMetrics() throws IOException, InterruptedException {
    Pod pod =
        pluginPods().stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .max(Comparator.comparing(p -> Instant.parse(p.getMetadata().getCreationTimestamp())))
            .orElseThrow(() -> new IllegalStateException("no plugin pod"));
    int port = PluginMetrics.port(client.pods().resource(pod).getLog());
    if (cluster.podsReachableFromHere()) {
      return PluginMetrics.get(cluster.hostNetworkAddress(), port);
    }
    return client.raw(
        "/api/v1/namespaces/%s/pods/%s:%d/proxy/prometheus"
            .formatted(HelmChart.NAMESPACE, pod.getMetadata().getName(), port));
  }

  /** The controller pod holding the election Lease. */
  private String leader() {
    return client
        .leases()
        .inNamespace(HelmChart.NAMESPACE)
        .withName("tessera-controller")
        .require()
        .getSpec()
        .getHolderIdentity();
  }

  @Override
  public String logs(int lines) {
    var s = new StringBuilder();
    for (Pod pod : client.pods().inNamespace(HelmChart.NAMESPACE).list().getItems()) {
      for (var container : pod.getSpec().getContainers()) {
        s.append(
            "--- the last %d lines of %s/%s's log:%n"
                .formatted(lines, pod.getMetadata().getName(), container.getName()));
        s.append(
            client
                .pods()
                .resource(pod)
                .inContainer(container.getName())
                .tailingLines(lines)
                .getLog());
      }
    }
    return s.toString();
  }

  /**
   * Tessera's pods, each container with its restart count (a crash loop must not go unseen). One
   * restart after a {@code StartError} is marked {@link #RUNTIME_START_FAILED}: the node's
   * container runtime failed to start the process, which never ran (runc's "unable to freeze" while
   * it set up the cgroup, on kind under CI's load, kubernetes/kubernetes#131087); the next start
   * ran. A Tessera image that cannot start fails every start, and restarts more than once.
   */
  private List<String> restarts() {
    return client.pods().inNamespace(HelmChart.NAMESPACE).list().getItems().stream()
        .flatMap(
            pod ->
                pod.getStatus().getContainerStatuses().stream()
                    .map(
                        c ->
                            pod.getMetadata().getName()
                                + " restarts="
                                + c.getRestartCount()
                                + (runtimeStartFailedOnce(c) ? RUNTIME_START_FAILED : "")))
        .toList();
  }

  private static final String RUNTIME_START_FAILED = " (the runtime failed to start it)";

  private static boolean runtimeStartFailedOnce(ContainerStatus container) {
    var last = container.getLastState() == null ? null : container.getLastState().getTerminated();
    return container.getRestartCount() == 1
        && last != null
        && "StartError".equals(last.getReason());
  }

  /**
   * Restarts of {@code podPrefix}'s pods are what the test made happen ({@code why}), not a crash
   * loop: the check at close leaves them out.
   */
  void expectRestarts(String podPrefix, String why) {
    System.out.printf("--- restarts of %s expected: %s%n", podPrefix, why);
    restartsExpected.add(podPrefix);
  }

  @Override
  public void close() throws Exception {
    List<String> restarts =
        restarts().stream()
            .filter(r -> restartsExpected.stream().noneMatch(r::startsWith))
            .toList();
    // Why, in the failure's own message too: CI's excerpt of a failed run shows the test summary,
    // not everything the tests printed (a kind run's controller restart went unexplained so).
    String why =
        restarts.stream()
            .filter(r -> !r.endsWith(" restarts=0"))
            .map(r -> r.substring(0, r.indexOf(' ')))
            .distinct()
            .map(pod -> whyRestarted(pod, 40))
            .collect(Collectors.joining());
    System.out.print(why);
    try {
      uninstall();
    } finally {
      assertThat(restarts)
          .as("Tessera's pods ran without a restart%n%s", why)
          .allMatch(r -> r.endsWith(" restarts=0") || r.endsWith(RUNTIME_START_FAILED));
    }
  }

  /**
   * How {@code pod}'s containers last ended and the last {@code lines} of what they logged then: an
   * unexpected restart is gone with the cluster once the test fails.
   */
  String whyRestarted(String pod, int lines) {
    try {
      return restartReport(pod, lines);
    } catch (RuntimeException e) {
      // A report that cannot be read must not keep the release from being uninstalled.
      return "--- %s restarted; why could not be read: %s%n".formatted(pod, e.getMessage());
    }
  }

  private String restartReport(String pod, int lines) {
    var s = new StringBuilder();
    var resource = client.pods().inNamespace(HelmChart.NAMESPACE).withName(pod);
    Pod found = resource.get();
    if (found == null) {
      return "--- %s restarted, and is gone%n".formatted(pod);
    }
    for (var status : found.getStatus().getContainerStatuses()) {
      var last = status.getLastState() == null ? null : status.getLastState().getTerminated();
      s.append(
          "--- %s/%s restarted %d times; the last end: %s%n"
              .formatted(
                  pod,
                  status.getName(),
                  status.getRestartCount(),
                  last == null
                      ? "unknown"
                      : "%s, exit code %d, at %s (%s)"
                          .formatted(
                              last.getReason(),
                              last.getExitCode(),
                              last.getFinishedAt(),
                              last.getMessage())));
      try {
        String previous = resource.inContainer(status.getName()).terminated().getLog();
        s.append(
                previous
                    .lines()
                    .skip(Math.max(0, previous.lines().count() - lines))
                    .collect(Collectors.joining("\n")))
            .append('\n');
      } catch (RuntimeException e) {
        s.append("(its log before the restart is gone: ").append(e.getMessage()).append(")\n");
      }
    }
    return s.toString();
  }

  private void uninstall() throws Exception {
    HelmChart.helm(
        List.of(
            "uninstall",
            HelmChart.RELEASE,
            "-n",
            HelmChart.NAMESPACE,
            "--wait",
            "--kubeconfig",
            cluster.adminKubeconfig().toString()));
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> pluginPods().isEmpty());
      HelmChart.deleteNamespace(client);
    } finally {
      // install-tessera made the root a shared bind mount of its own where it sat on a private one
      // (the chart mounts it HostToContainer, which needs a shared or slave mount).
      if (new ProcessBuilder("mountpoint", "-q", driverRoot.toString()).start().waitFor() == 0) {
        Process umount = new ProcessBuilder("umount", driverRoot.toString()).start();
        assertThat(umount.waitFor()).as("umount " + driverRoot).isZero();
      }
    }
  }
}
