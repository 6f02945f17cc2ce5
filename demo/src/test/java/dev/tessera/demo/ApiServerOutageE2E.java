package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.api.DriverNames;
import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The API server goes away for 30 s while the kubelet has a prepare and an unprepare in flight
 * (hack/cluster/component stops and starts it, with its own command line). What must hold:
 *
 * <ul>
 *   <li>the prepare fails with a clear error (the claim cannot be read) and succeeds on the
 *       kubelet's retry once the API server is back: the pod runs;
 *   <li>the unprepare of a claim already deleted succeeds from the checkpoint alone, during the
 *       outage: its CDI spec and checkpoint entry go;
 *   <li>no controller withdraws the slices of the live node when the API server is back, though
 *       every plugin Lease looks expired by then (renewed last before the outage, 4 s Leases here):
 *       the leader that lost its lead in the outage stops writing at once, and a controller counts
 *       a Lease from no earlier than when it last gained sight of the Leases (LeaseLiveness says
 *       why), so the slices keep their UIDs;
 *   <li>nothing is lost: the prepared claim is in the checkpoint, the GpuNode is there.
 * </ul>
 *
 * <p>To have both calls in flight at the moment the API server stops, the test holds the plugin's
 * node lock (the OS lock beside its checkpoint, which a second plugin process would hold): the
 * kubelet's calls reach the plugin and wait behind it.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class ApiServerOutageE2E {
  private static final Duration OUTAGE = Duration.ofSeconds(30);

  /** Longer than the outage. */
  private static final String ELECTION_LEASE = "90s";

  private static final String NS = "default";

  private static Cluster cluster;
  private static ClusterComponents components;
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    cluster = Clusters.requireLocal();
    components = cluster.components().orElseThrow();
    // An election Lease longer than the outage: the leader gives its lead up at its first failed
    // renewal (fabric8's elector) and exits, but no replica can lead again before that Lease runs
    // out, so for a minute after the API server is back only the ex-leader's stale caches could
    // write. Before LeaderElection stopped the workers at once, that ex-leader (still running its
    // shutdown hooks) withdrew the live node's slices from its stale Lease cache: this test saw the
    // slices' UID change.
    tessera =
        TesseraOnNode.startWithHelmValues(
            cluster,
            "H100-SXM5-80GB",
            2,
            Offering.EXCLUSIVE,
            List.of("controller.electionLeaseDuration=" + ELECTION_LEASE));
  }

  @AfterAll
  static void stop() throws Exception {
    // components is set before tessera is started: without it there is nothing to close.
    if (components != null) {
      components.startStoppedThenClose(tessera);
    }
  }

  @Test
  void preparesFailClearlyAndRetryUnpreparesNeedNoApiServerAndNoSliceIsWithdrawn()
      throws Exception {
    KubernetesClient client = tessera.client();
    create(client, "outage-before");
    awaitRunning(client, "outage-before");
    String before = claimUid(client, "outage-before");
    assertThat(tessera.checkpointedClaims()).contains(before);
    Map<String, String> sliceUids = tessera.sliceUids();
    assertThat(sliceUids).isNotEmpty();

    Path lockFile =
        cluster.pluginsDir().resolve(DriverNames.DEFAULT_DRIVER).resolve("checkpoint.json.lock");
    String after;
    long stopped;
    try (var channel =
        FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock lock = channel.lock();
      // An unprepare in flight of a claim the API server no longer has.
      client.pods().inNamespace(NS).withName("outage-before").withGracePeriod(0).delete();
      client
          .dynamicResourceAllocation()
          .v1()
          .resourceClaims()
          .inNamespace(NS)
          .withName("outage-before")
          .delete();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> claim(client, "outage-before") == null && requested("unprepare", before));
      // A prepare in flight: the kubelet has read the claim and asked the plugin.
      create(client, "outage-after");
      await().atMost(Duration.ofSeconds(60)).until(() -> claim(client, "outage-after") != null);
      after = claimUid(client, "outage-after");
      String afterUid = after;
      await().atMost(Duration.ofSeconds(60)).until(() -> requested("prepare", afterUid));

      ((TesseraRelease) tessera.deployment())
          .expectRestarts(
              "tessera-controller",
              "the leader cannot renew its election Lease while the API server is away: it stops"
                  + " publishing, exits, and the kubelet starts it again as a follower");
      components.stop("kube-apiserver");
      stopped = System.nanoTime();
      System.out.println("--- the API server stopped; the node lock released");
      lock.release();
    }

    // During the outage: the unprepare went through from the checkpoint alone ...
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(tessera.checkpointedClaims()).doesNotContain(before);
              assertThat(tessera.cdiSpecs()).noneMatch(spec -> spec.contains(before));
            });
    // ... and the prepare failed, saying why, with nothing left for the retry to trip on.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(pluginLog())
                    .contains("prepare failed: cannot read claim " + NS + "/outage-after")
                    .contains("the kubelet retries"));
    assertThat(tessera.checkpointedClaims()).doesNotContain(after);
    System.out.println(
        "--- during the outage, the plugin logged:\n"
            + pluginLog()
                .lines()
                .filter(l -> l.contains("outage-") || l.contains("Lease"))
                .collect(Collectors.joining("\n")));

    long left = OUTAGE.toNanos() - (System.nanoTime() - stopped);
    if (left > 0) {
      Thread.sleep(Duration.ofNanos(left));
    }
    components.start("kube-apiserver");
    Instant back = Instant.now();
    System.out.printf(
        "--- the API server back after %d s%n",
        Duration.ofNanos(System.nanoTime() - stopped).toSeconds());

    // The kubelet's retry prepares the claim: the pod runs.
    awaitRunning(client, "outage-after");
    assertThat(tessera.checkpointedClaims()).contains(after);
    // Let the controller's watches come back and reconcile the node several times over: the same
    // slices, never withdrawn and published again.
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> electionRenewedAfter(client, back));
    Thread.sleep(Duration.ofSeconds(10));
    System.out.println("--- controller pods after the outage (restarts):");
    for (Pod p :
        client
            .pods()
            .inNamespace(HelmChart.NAMESPACE)
            .withLabel("app.kubernetes.io/name", "tessera-controller")
            .list()
            .getItems()) {
      int restarts = p.getStatus().getContainerStatuses().get(0).getRestartCount();
      System.out.printf("  %s restarts=%d%n", p.getMetadata().getName(), restarts);
      if (restarts > 0) {
        System.out.print(
            ((TesseraRelease) tessera.deployment()).whyRestarted(p.getMetadata().getName(), 40));
      }
    }
    assertThat(tessera.sliceUids())
        .as("the node's slices (name -> UID) after the outage")
        .isEqualTo(sliceUids);
    assertThat(
            client
                .genericKubernetesResources(GpuNodeReporter.GPU_NODES)
                .withName(cluster.nodeName())
                .get())
        .as("the node's GpuNode")
        .isNotNull();

    client.pods().inNamespace(NS).withName("outage-after").withGracePeriod(0).delete();
    client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(NS)
        .withName("outage-after")
        .delete();
    String afterUid = after;
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(tessera.checkpointedClaims()).doesNotContain(afterUid));
  }

  /** A claim for one GPU and a pod that uses it, both named {@code name}. */
  private static void create(KubernetesClient client, String name) {
    client
        .resource(
            """
            apiVersion: resource.k8s.io/v1
            kind: ResourceClaim
            metadata: {name: %1$s, namespace: %2$s}
            spec:
              devices:
                requests:
                - name: gpu
                  exactly: {deviceClassName: gpu.tessera.dev}
            """
                .formatted(name, NS))
        .create();
    client
        .resource(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: %1$s, namespace: %2$s}
            spec:
              restartPolicy: Never
              terminationGracePeriodSeconds: 1
              resourceClaims:
              - {name: gpu, resourceClaimName: %1$s}
              containers:
              - name: ctr
                image: localhost/tessera/busybox:1.35.0
                imagePullPolicy: Never
                command: ["sh", "-c", "echo NVIDIA_VISIBLE_DEVICES=$NVIDIA_VISIBLE_DEVICES; exec sleep 3600"]
                resources:
                  claims: [{name: gpu}]
            """
                .formatted(name, NS))
        .create();
  }

  private static void awaitRunning(KubernetesClient client, String pod) {
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofSeconds(1))
        .ignoreExceptions()
        .until(
            () -> {
              Pod p = client.pods().inNamespace(NS).withName(pod).get();
              return p != null && "Running".equals(p.getStatus().getPhase());
            });
  }

  /** A controller leads again: the election Lease was renewed since {@code back}. */
  private static boolean electionRenewedAfter(KubernetesClient client, Instant back) {
    Lease lease =
        client.leases().inNamespace(HelmChart.NAMESPACE).withName("tessera-controller").get();
    return lease != null
        && lease.getSpec().getRenewTime() != null
        && lease.getSpec().getRenewTime().toInstant().isAfter(back);
  }

  private static ResourceClaim claim(KubernetesClient client, String name) {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(NS)
        .withName(name)
        .get();
  }

  private static String claimUid(KubernetesClient client, String name) {
    return claim(client, name).getMetadata().getUid();
  }

  /** The plugin pod's log as the kubelet wrote it on this host (readable without the API). */
  private static String pluginLog() throws Exception {
    return components.podLog(HelmChart.NAMESPACE, "tessera-kubelet-plugin");
  }

  /** Whether the plugin logged the kubelet's call for the claim (it waits on the node lock). */
  private static boolean requested(String what, String claimUid) throws Exception {
    return pluginLog()
        .lines()
        .anyMatch(l -> l.contains(what + " requested by the kubelet") && l.contains(claimUid));
  }
}
