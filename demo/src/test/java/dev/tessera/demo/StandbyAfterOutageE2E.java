package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.TesseraDeployment.Kind;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A standby controller replica, its caches filled while it waited (decision 59), comes to lead
 * after an API server outage in which the leader lost its lead: it must keep the live node's
 * slices. The plugin is paused (SIGSTOP) through the outage and resumed only once the standby
 * leads, as a plugin slow to renew after an outage: its Lease (4 s, renewed last before the outage)
 * looks expired to the new leader, which has watched since long before the outage. It counts a
 * Lease's expiry from no earlier than when it last regained sight of the Leases (LeaseSight), so
 * the plugin's renewal comes within the grace, and the slices keep their UIDs.
 *
 * <p>What this does not isolate: with the sight checked only from the lead on (before decision 59's
 * check from the sync on), it passed too. Most likely (not confirmed in its logs): the standby
 * leads a few seconds after the API server is back, before its Lease watch has come back from its
 * backoff, and the sight is also checked before every reconcile, so it is found broken then. The
 * check from the sync on is for a standby that leads after its watch came back, within the grace of
 * that (docs/decisions.md, 59): {@link StandbyAfterItsWatchReturnsE2E} shows that one.
 */
@ExtendWith(TesseraLogsOnFailure.class)
class StandbyAfterOutageE2E {
  /**
   * Longer than the plugin's Lease and the grace together, and than the leader's renew deadline.
   */
  private static final Duration OUTAGE = Duration.ofSeconds(30);

  /**
   * Longer than the plugin needs to renew once it is resumed, shorter than the outage (so a sight
   * dated before the outage finds the plugin's Lease expired).
   */
  private static final String LEASE_GRACE = "20s";

  private static Cluster cluster;
  private static ClusterComponents components;
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    cluster = Clusters.requireLocal();
    components = cluster.components().orElseThrow();
    tessera =
        TesseraOnNode.start(
            cluster,
            Kind.HOST,
            "H100-SXM5-80GB",
            2,
            Offering.EXCLUSIVE,
            Map.of("TESSERA_CONTROLLER_LEASE_GRACE", LEASE_GRACE));
  }

  @AfterAll
  static void stop() throws Exception {
    // components is set before tessera is started: without it there is nothing to close.
    if (components != null) {
      components.startStoppedThenClose(tessera);
    }
  }

  @Test
  void aStandbyThatLeadsAfterAnOutageKeepsTheLiveNodesSlices() throws Exception {
    try (var second = tessera.processes().startAnotherController()) {
      await().atMost(Duration.ofSeconds(30)).until(second::cachesSynced);
      Map<String, String> before = tessera.sliceUids();
      assertThat(before).isNotEmpty();

      tessera.processes().pausePlugin();
      try {
        components.stop("kube-apiserver");
        Thread.sleep(OUTAGE);
        components.start("kube-apiserver");
        // The leader could not renew its election Lease in the outage: it gave the lead up and
        // exited. The standby leads once that Lease has run out.
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> Files.readString(second.log()).contains(" leading "));
      } finally {
        tessera.processes().resumePlugin();
      }
      assertThat(Files.readString(tessera.processes().controller().log()))
          .contains("lost the lead");
      // Several of its resyncs (2 s) and the plugin's renewals (1 s) later: the same slices,
      // never withdrawn and published again.
      Thread.sleep(Duration.ofSeconds(10));
      assertThat(tessera.sliceUids())
          .as("the node's slices (name -> UID) after the outage")
          .isEqualTo(before);
      assertThat(Files.readString(second.log()))
          .as("the standby's log")
          .doesNotContain("published the node's slices");
    }
  }
}
