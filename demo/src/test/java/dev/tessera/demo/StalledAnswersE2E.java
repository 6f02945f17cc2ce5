package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.publish.StallingProxy;
import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller when one kind of the API server's answers stalls after its headers, which
 * fabric8's JDK client never times out (decisions 68 to 72), or a watch goes silent without ending
 * (decision 73): each test runs Tessera as host processes on the local cluster and a controller
 * replica that reaches the real API server through a proxy that ends TLS and stalls the requests
 * the test names. Each failed with its bound's check taken out.
 */
class StalledAnswersE2E {
  private static final String LOST = "lost the lead; exiting";
  private static final String HUNG =
      "a request for the Lease still under way past the renew deadline";
  private static final String GIVEN_UP = "an API call has not ended within the call timeout";
  private static final String GPU_NODES_LIST = "GET /apis/gpu.tessera.dev/v1alpha1/gpunodes?";
  private static final String EVENT_CREATE = "POST /api/v1/namespaces/default/events HTTP/1.1";
  private static final String SLICE_CREATE =
      "POST /apis/resource.k8s.io/v1/resourceslices HTTP/1.1";
  private static final String PLUGIN_LEASES =
      "GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?";
  private static final String CONTRADICTED =
      "the plugin's Lease is renewed at the API server but expired in the controller's cache";

  private TesseraOnNode tessera;
  private Path dir;
  private StallingProxy proxy;

  @BeforeEach
  void start() throws Exception {
    Cluster cluster = Clusters.require();
    tessera = TesseraOnNode.startAsProcesses(cluster, "H100-SXM5-80GB", 2, Offering.EXCLUSIVE);
    dir = Files.createTempDirectory("tessera-stalling-proxy");
    proxy =
        StallingProxy.tlsBefore(
            Config.fromKubeconfig(Files.readString(cluster.adminKubeconfig())), dir);
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (proxy != null) {
        proxy.close(); // first: a stalled answer's connection ends with it
      }
    } finally {
      try {
        if (tessera != null) {
          tessera.close();
        }
      } finally {
        if (dir != null) {
          TestFiles.deleteTree(dir);
        }
      }
    }
  }

  @Test
  void aLeaderWhoseRenewalHangsLosesItsLeadBeforeTheNextReplicaLeads() throws Exception {
    var processes = tessera.processes();
    try (var hung = leadingBehindProxy("controller-hung", Map.of())) {
      assertRepublished("the replica behind the proxy");

      try (var next = processes.startAnotherController("controller-next", Map.of())) {
        await().atMost(Duration.ofSeconds(60)).until(next::cachesSynced);
        proxy.stall(line -> line.contains("/leases/tessera-controller "));

        // Its renewal stalls; it takes the lead as lost 9.6 to 10.4 s after its last renew time
        // (client-go's bound for the tests' 12 s Lease), stops its workers and exits, while the
        // Lease it last renewed has not yet expired for the next.
        await()
            .alias("the hung leader's exit (its log: %s)".formatted(hung.log()))
            .atMost(Duration.ofSeconds(30))
            .until(() -> !hung.alive());
        assertThat(hung.exitStatus()).isEqualTo(1);
        assertThat(Files.readString(hung.log())).contains(LOST).contains(HUNG);
        assertThat(proxy.stalled()).as("the Lease requests stalled").isNotEmpty();

        awaitLeading(next);
        assertThat(between(timeOf(hung.log(), LOST), timeOf(next.log(), " leading ")))
            .as("from the hung leader's lost lead to the next's lead: after it, within minutes")
            .isPositive()
            .isLessThan(Duration.ofMinutes(10));
        assertRepublished("the next leader");
      }
    }
  }

  @Test
  void aLeaderWhoseFirstListStallsExitsNamingItAndTheNextReplicaPublishes() throws Exception {
    proxy.stall(line -> line.startsWith(GPU_NODES_LIST) && !line.contains("watch=true"));
    var processes = tessera.processes();
    // The first replica releases its lead at its stop; the one behind the proxy takes it.
    processes.controller().close();
    try (var stalled =
        startBehindProxy(
            "controller-stalled-list", Map.of("TESSERA_CONTROLLER_LIST_TIMEOUT", "5s"))) {
      awaitLeading(stalled);
      await()
          .alias("the stalled leader's exit (its log: %s)".formatted(stalled.log()))
          .atMost(Duration.ofSeconds(30))
          .until(() -> !stalled.alive());
      assertThat(stalled.exitStatus()).isEqualTo(1);
      assertThat(Files.readString(stalled.log()))
          .contains("the gpunodes list asked for at")
          .contains("has not ended within PT5S")
          .doesNotContain("published the node's slices");
      assertThat(proxy.stalled()).isNotEmpty().allMatch(l -> l.startsWith(GPU_NODES_LIST));

      try (var next = processes.startAnotherController("controller-next", Map.of())) {
        awaitLeading(next);
        assertRepublished("the next leader");
      }
    }
  }

  @Test
  void aLeaderWhoseRelistStallsExitsNamingItAndTheNextReplicaPublishes() throws Exception {
    var processes = tessera.processes();
    try (var proxied =
        leadingBehindProxy(
            "controller-stalled-relist", Map.of("TESSERA_CONTROLLER_LIST_TIMEOUT", "5s"))) {
      assertRepublished("the replica behind the proxy");

      // Its GpuNodes' watch ends as when the API server compacted its resource version away, and
      // the list it asks for then stalls after its headers.
      proxy.stall(line -> line.startsWith(GPU_NODES_LIST) && !line.contains("watch=true"));
      proxy.endWatches(
          line -> line.startsWith(GPU_NODES_LIST) && line.contains("watch=true"),
          StallingProxy.EXPIRED);

      await()
          .alias("the leader's exit (its log: %s)".formatted(proxied.log()))
          .atMost(Duration.ofSeconds(30))
          .until(() -> !proxied.alive());
      assertThat(proxied.exitStatus()).isEqualTo(1);
      assertThat(Files.readString(proxied.log()))
          .contains("cannot publish while leading; exiting")
          .contains("the gpunodes list asked for at")
          .contains("has not ended within PT5S");
      assertThat(proxy.endedWatches()).as("GpuNode watches ended").isNotEmpty();
      assertThat(proxy.stalled()).isNotEmpty().allMatch(l -> l.startsWith(GPU_NODES_LIST));

      try (var next = processes.startAnotherController("controller-next", Map.of())) {
        awaitLeading(next);
        assertRepublished("the next leader");
      }
    }
  }

  @Test
  void aSliceWriteWhoseAnswerStallsIsGivenUpAndTheNodePublishedOnItsRetry() throws Exception {
    try (var proxied =
        leadingBehindProxy(
            "controller-stalled-write", Map.of("TESSERA_CONTROLLER_CALL_TIMEOUT", "5s"))) {
      // The next slice create stalls; every request after it passes.
      var first = new AtomicBoolean(true);
      proxy.stall(line -> line.equals(SLICE_CREATE) && first.getAndSet(false));
      tessera.slices().forEach(s -> tessera.client().resource(s).delete());

      await()
          .alias("the stalled create given up (log: %s)".formatted(proxied.log()))
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(proxied.log()).contains(GIVEN_UP));
      await()
          .alias("slices published again (log: %s)".formatted(proxied.log()))
          .atMost(Duration.ofSeconds(30))
          .until(() -> !tessera.slices().isEmpty());
      assertThat(proxy.stalled()).containsExactly(SLICE_CREATE);
      await()
          .alias("the stalled answer closed by the controller")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(proxy.endedByClient()).containsExactly(SLICE_CREATE));
      assertThat(Files.readString(proxied.log()))
          .contains("node=\"" + tessera.nodeName() + "\"")
          .contains("answersCancelled=\"1\"");
      assertThat(proxied.metrics())
          .contains("tessera_controller_calls_abandoned_total{call=\"slice-writes\"} 1.0")
          .doesNotContain("tessera_controller_slice_writes_rejected_total{");
      assertThat(proxied.alive()).as("the controller still runs").isTrue();
    }
  }

  @Test
  void anEventWriteWhoseAnswerStallsIsGivenUpAndTheNextEventWritten() throws Exception {
    try (var proxied =
        leadingBehindProxy(
            "controller-stalled-event", Map.of("TESSERA_CONTROLLER_CALL_TIMEOUT", "5s"))) {
      assertRepublished("the replica behind the proxy");

      // The next Event create stalls (the taint's); every request after it passes.
      var first = new AtomicBoolean(true);
      proxy.stall(line -> line.equals(EVENT_CREATE) && first.getAndSet(false));
      Instant injected = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      tessera.injectNvmlEvent("1 xid 79");

      // Quiet for the plugin's recovery period: the taint is lifted, and its Event written once
      // the taint's, stalled, has been given up.
      await()
          .alias("the recovery's Event (log: %s)".formatted(proxied.log()))
          .atMost(Duration.ofSeconds(60))
          .until(() -> eventsSince("DeviceRecovered", injected) == 1);
      assertThat(Files.readString(proxied.log()))
          .contains(GIVEN_UP)
          .contains("call=\"event-writes\"")
          .contains("answersCancelled=\"1\"");
      assertThat(proxy.stalled()).containsExactly(EVENT_CREATE);
      await()
          .alias("the stalled answer closed by the controller")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(proxy.endedByClient()).containsExactly(EVENT_CREATE));
      assertThat(eventsSince("DeviceTainted", injected)).as("the taint's Event").isZero();
      assertThat(proxied.metrics())
          .contains("tessera_controller_calls_abandoned_total{call=\"event-writes\"} 1.0")
          .contains("tessera_controller_events_dropped_total{reason=\"write-failed\"} 1.0");
    }
  }

  @Test
  void aLeaderWhoseLeaseWatchGoesSilentKeepsTheNodesSlicesUntilItsPluginStops() throws Exception {
    try (var proxied = leadingBehindProxy("controller-silent-leases", Map.of())) {
      assertRepublished("the replica behind the proxy");

      // Its watch on the plugins' Leases stays open and passes nothing more (as one stalled in the
      // API server's watch cache), while the plugin goes on renewing its Lease.
      assertThat(
              proxy.silenceWatches(
                  line -> line.startsWith(PLUGIN_LEASES) && line.contains("watch=true")))
          .as("Lease watches silenced")
          .isEqualTo(1);

      await()
          .alias(
              "the node's slices kept over three of its Lease's periods and graces (log: %s)"
                  .formatted(proxied.log()))
          .during(Duration.ofSeconds(18))
          .atMost(Duration.ofSeconds(25))
          .until(() -> !tessera.slices().isEmpty());
      assertThat(Files.readString(proxied.log()))
          .contains(CONTRADICTED)
          .contains("node=\"" + tessera.nodeName() + "\"");
      assertThat(proxied.metrics())
          .containsPattern("tessera_controller_lease_expiries_contradicted_total [1-9]")
          .containsPattern("tessera_controller_lease_relists_total [1-9]");
      assertThat(proxy.requestLines())
          .as("the relist, asked in pages (so answered from storage, not the watch cache)")
          .anyMatch(
              line ->
                  line.startsWith(PLUGIN_LEASES)
                      && line.contains("limit=")
                      && !line.contains("watch=true")
                      && !line.contains("resourceVersion=0"));

      // A plugin that does stop has its node's slices withdrawn, as before.
      tessera.processes().stopPlugin();
      await()
          .alias(
              "the node's slices withdrawn once its plugin stopped (log: %s)"
                  .formatted(proxied.log()))
          .atMost(Duration.ofSeconds(30))
          .until(() -> tessera.slices().isEmpty());
    }
  }

  /**
   * The node's GpuNode's Events with {@code reason} that last happened at or after {@code since}.
   */
  private long eventsSince(String reason, Instant since) {
    return tessera.client().v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> e.getInvolvedObject() != null)
        .filter(e -> tessera.nodeName().equals(e.getInvolvedObject().getName()))
        .filter(e -> reason.equals(e.getReason()))
        .filter(e -> !lastSeen(e).isBefore(since))
        .count();
  }

  /** When the Event last happened. */
  private static Instant lastSeen(Event e) {
    String last = e.getLastTimestamp() != null ? e.getLastTimestamp() : e.getFirstTimestamp();
    return last == null ? Instant.EPOCH : Instant.parse(last);
  }

  /**
   * Another controller replica behind the proxy, leading: once its caches have synced, the first
   * replica is stopped and releases its lead, which this one takes.
   */
  private ControllerProcess leadingBehindProxy(String name, Map<String, String> env)
      throws IOException, InterruptedException {
    var proxied = startBehindProxy(name, env);
    try {
      await().atMost(Duration.ofSeconds(60)).until(proxied::cachesSynced);
      tessera.processes().controller().close();
      awaitLeading(proxied);
      return proxied;
    } catch (RuntimeException | Error | InterruptedException e) {
      proxied.close(); // the caller's try-with-resources never got it
      throw e;
    }
  }

  /** Another controller replica that reaches the API server through the proxy. */
  private ControllerProcess startBehindProxy(String name, Map<String, String> env)
      throws IOException {
    var settings = new HashMap<>(env);
    settings.put("TESSERA_CONTROLLER_KUBECONFIG", proxy.writeKubeconfig(dir).toString());
    return tessera.processes().startAnotherController(name, settings);
  }

  private static void awaitLeading(ControllerProcess controller) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.readString(controller.log()).contains(" leading "));
  }

  /** Deletes the node's slices and waits until {@code publisher} has published them again. */
  private void assertRepublished(String publisher) {
    tessera.slices().forEach(s -> tessera.client().resource(s).delete());
    await()
        .alias("slices published again by " + publisher)
        .atMost(Duration.ofSeconds(30))
        .until(() -> !tessera.slices().isEmpty());
  }

  /**
   * From {@code from} to {@code to}, times of day in the logs: past midnight, {@code to} is the
   * next day's (an earlier {@code to} then reads as nearly a day after).
   */
  private static Duration between(LocalTime from, LocalTime to) {
    Duration between = Duration.between(from, to);
    return between.isNegative() ? between.plusDays(1) : between;
  }

  /** The time of the first line of {@code log} that contains {@code text} (its HH:mm:ss.SSS). */
  private static LocalTime timeOf(Path log, String text) throws IOException {
    return Files.readAllLines(log).stream()
        .filter(l -> l.contains(text))
        .map(l -> LocalTime.parse(l.substring(0, l.indexOf(' '))))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line with \"" + text + "\" in " + log));
  }
}
