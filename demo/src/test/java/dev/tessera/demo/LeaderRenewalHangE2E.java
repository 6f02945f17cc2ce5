package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.publish.StallingProxy;
import dev.tessera.controller.render.Offering;
import dev.tessera.plugin.it.TestFiles;
import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A leading controller whose Lease renewal's answer stalls after its headers, on the real API
 * server through a proxy that ends TLS: it gives the lead up within its renew deadline and exits
 * before the Lease expires, so the replica that takes the lead next never publishes beside it.
 * fabric8's elector checks its renew deadline only between tries, and fabric8's JDK client has no
 * timeout once an answer's headers have come: before, the hung leader went on leading beside the
 * next (decision 69).
 */
class LeaderRenewalHangE2E {
  private static final String LOST = "lost the lead; exiting";
  private static final String HUNG =
      "a request for the Lease still under way past the renew deadline";

  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera =
        TesseraOnNode.startAsProcesses(Clusters.require(), "H100-SXM5-80GB", 2, Offering.EXCLUSIVE);
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  @Test
  void aLeaderWhoseRenewalHangsExitsBeforeAnotherReplicaLeads() throws Exception {
    Cluster cluster = Clusters.require();
    Path dir = Files.createTempDirectory("tessera-stalling-proxy");
    try (var proxy =
        StallingProxy.tlsBefore(
            Config.fromKubeconfig(Files.readString(cluster.adminKubeconfig())), dir)) {
      var processes = tessera.processes();
      try (var hung =
          processes.startAnotherController(
              "controller-hung",
              Map.of("TESSERA_CONTROLLER_KUBECONFIG", proxy.writeKubeconfig(dir).toString()))) {
        await().atMost(Duration.ofSeconds(60)).until(hung::cachesSynced);
        // The first replica releases its lead at its stop; the one behind the proxy takes it.
        processes.controller().close();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> Files.readString(hung.log()).contains(" leading "));
        tessera.slices().forEach(s -> tessera.client().resource(s).delete());
        await()
            .alias("slices published again by the replica behind the proxy")
            .atMost(Duration.ofSeconds(30))
            .until(() -> !tessera.slices().isEmpty());

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

          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> Files.readString(next.log()).contains(" leading "));
          assertThat(timeOf(hung.log(), LOST))
              .as("the hung leader took its lead as lost before the next led")
              .isBefore(timeOf(next.log(), " leading "));
          tessera.slices().forEach(s -> tessera.client().resource(s).delete());
          await()
              .alias("slices published again by the next leader")
              .atMost(Duration.ofSeconds(30))
              .until(() -> !tessera.slices().isEmpty());
        }
      }
    } finally {
      TestFiles.deleteTree(dir);
    }
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
