package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.DriverNames;
import dev.tessera.controller.render.Offering;
import dev.tessera.demo.TesseraDeployment.Kind;
import dev.tessera.plugin.k8s.MpsDaemonPod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MPS control daemons in pods of their own (the chart's {@code plugin.mpsDaemons: pods}): a running
 * MPS client keeps its daemon through a rolling upgrade of the plugin's DaemonSet and through a
 * SIGKILL of the plugin's process. The client is the simulator's {@code mock-mps-client}: it names
 * the daemon that serves it (the pod's host name, pid and start) and exits saying so the moment
 * that daemon goes or another takes its place. When the claim goes, the daemon quits, its pod and
 * dirs go; none is left.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class MpsDaemonPodsE2E {
  private static final String NAMESPACE = "default";

  @Test
  void anMpsClientKeepsItsDaemonThroughAPluginUpgradeAndAPluginKill() throws Exception {
    try (var tessera =
        TesseraOnNode.start(
            Clusters.require(), Kind.HELM, "H100-SXM5-80GB", 2, Offering.EXCLUSIVE, Map.of())) {
      var client = tessera.client();
      TesseraRelease release = tessera.release();
      Path manifest = Files.createTempFile("mps-client-", ".yaml");
      try {
        Files.writeString(manifest, manifest(tessera.driverRoot()));
        tessera.apply(manifest);
        String served = awaitServed(tessera);
        Pod daemon = daemonPod(tessera);
        System.out.println(
            "--- the daemon's pod: " + daemon.getMetadata().getName() + "; " + served);
        // The daemon runs in its own pod (its host name), bound to the node, not as the plugin's
        // child.
        assertThat(served)
            .startsWith("mps client: served by daemon " + daemon.getMetadata().getName() + "-");
        assertThat(daemon.getSpec().getNodeName()).isEqualTo(tessera.nodeName());
        assertThat(daemon.getStatus().getPhase()).isEqualTo("Running");
        assertThat(tessera.mpsDaemonStarts()).isEqualTo(1);

        // A rolling upgrade of the DaemonSet: a new plugin pod, the old one gone.
        Pod firstPlugin = release.pluginPods().get(0);
        release.upgrade("plugin.podAnnotations.tessera\\.dev/rollout=mps");
        Pod secondPlugin = release.awaitOnePluginPodRegistered(firstPlugin.getMetadata().getUid());
        assertStillServed(tessera, served, daemon);

        // SIGKILL of the plugin's process: the kubelet restarts its container; the new process
        // finds
        // the daemon through its pipe dir and keeps it.
        int restarts = restarts(client.pods().resource(secondPlugin).get());
        long pid = PodProcesses.pluginPid(secondPlugin.getMetadata().getUid());
        release.expectRestarts(
            secondPlugin.getMetadata().getName(), "the test SIGKILLs the plugin");
        System.out.println("--- SIGKILL to the plugin, pid " + pid);
        assertThat(new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor())
            .isZero();
        await()
            .atMost(Duration.ofSeconds(120))
            .ignoreExceptions()
            .untilAsserted(
                () -> {
                  Pod now = client.pods().resource(secondPlugin).get();
                  assertThat(restarts(now)).isGreaterThan(restarts);
                  assertThat(client.pods().resource(now).getLog())
                      .contains("registered with the kubelet");
                });
        assertStillServed(tessera, served, daemon);

        // The claim goes: its daemon quits, its pod and dirs go, none is left.
        deleteClientAndClaim(client);
        await()
            .atMost(Duration.ofSeconds(90))
            .untilAsserted(
                () -> {
                  assertThat(tessera.checkpointedClaims()).isEmpty();
                  assertThat(daemonPods(tessera)).isEmpty();
                  assertThat(mpsDirs()).isEmpty();
                });
        assertThat(tessera.driverToolLog("nvidia-cuda-mps-control")).contains("stdin: quit;");
      } finally {
        deleteClientAndClaim(client);
        Files.deleteIfExists(manifest);
      }
    }
  }

  private static void deleteClientAndClaim(KubernetesClient client) {
    client.pods().inNamespace(NAMESPACE).withName("mps-client").withGracePeriod(0).delete();
    client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(NAMESPACE)
        .withName("mps-client-gpu")
        .delete();
  }

  /** The client kept its first daemon: still running, nothing lost, the same daemon pod. */
  private static void assertStillServed(TesseraOnNode tessera, String served, Pod daemon) {
    // Give a lost daemon the time to be noticed (the client checks every second).
    await().pollDelay(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> true);
    Pod client = tessera.client().pods().inNamespace(NAMESPACE).withName("mps-client").get();
    String log = tessera.client().pods().resource(client).getLog();
    assertThat(log)
        .as("the MPS client's log")
        .contains(served)
        .doesNotContain("lost")
        .doesNotContain("changed");
    assertThat(client.getStatus().getPhase()).isEqualTo("Running");
    assertThat(daemonPod(tessera).getMetadata().getUid()).isEqualTo(daemon.getMetadata().getUid());
  }

  private static String awaitServed(TesseraOnNode tessera) {
    var pods = tessera.client().pods().inNamespace(NAMESPACE).withName("mps-client");
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> pods.getLog().contains("served by daemon"));
    return pods.getLog()
        .lines()
        .filter(l -> l.contains("served by daemon"))
        .findFirst()
        .orElseThrow();
  }

  private static List<Pod> daemonPods(TesseraOnNode tessera) {
    return tessera
        .client()
        .pods()
        .inNamespace(HelmChart.NAMESPACE)
        .withLabel(MpsDaemonPod.NAME_LABEL, MpsDaemonPod.NAME)
        .list()
        .getItems();
  }

  private static Pod daemonPod(TesseraOnNode tessera) {
    List<Pod> pods = daemonPods(tessera);
    assertThat(pods).as("MPS daemon pods").hasSize(1);
    return pods.get(0);
  }

  private static int restarts(Pod plugin) {
    return plugin.getStatus().getContainerStatuses().stream()
        .mapToInt(s -> s.getRestartCount())
        .sum();
  }

  private static List<String> mpsDirs() throws IOException {
    Path mps = Clusters.require().pluginsDir().resolve(DriverNames.DEFAULT_DRIVER).resolve("mps");
    if (!Files.isDirectory(mps)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(mps)) {
      return dirs.map(d -> d.getFileName().toString()).toList();
    }
  }

  /**
   * An MPS claim and its client: the simulator's client script, from the driver root mounted into
   * the pod (a test's pod may; a user's MPS client is a CUDA program).
   */
  private static String manifest(Path driverRoot) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: mps-client-gpu, namespace: default}
        spec:
          devices:
            requests:
            - name: gpu
              exactly: {deviceClassName: gpu.tessera.dev}
            config:
            - requests: ["gpu"]
              opaque:
                driver: gpu.tessera.dev
                parameters:
                  apiVersion: gpu.tessera.dev/v1alpha1
                  kind: GpuConfig
                  sharing: {strategy: MPS, mpsConfig: {defaultActiveThreadPercentage: 50}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: mps-client, namespace: default}
        spec:
          restartPolicy: Never
          terminationGracePeriodSeconds: 1
          resourceClaims:
          - {name: gpu, resourceClaimName: mps-client-gpu}
          containers:
          - name: ctr
            image: localhost/tessera/busybox:1.35.0
            imagePullPolicy: Never
            command: ["/sim/usr/bin/mock-mps-client"]
            resources:
              claims:
              - {name: gpu}
            volumeMounts:
            - {name: sim, mountPath: /sim, readOnly: true}
          volumes:
          - name: sim
            hostPath: {path: %s, type: Directory}
        """
        .formatted(driverRoot);
  }
}
