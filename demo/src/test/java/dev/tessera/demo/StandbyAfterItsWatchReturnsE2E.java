package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import dev.tessera.demo.TesseraDeployment.Kind;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What {@link StandbyAfterOutageE2E} does not isolate (decision 59): a standby that comes to lead
 * after its Lease watch came back from an API server outage, within the grace of that return, while
 * the node's plugin has not renewed since before the outage. Here the leader keeps its lead through
 * the outage (its election Lease outlasts it), so the standby leads only when the leader is stopped
 * (SIGTERM, which releases the lead), and the test stops it only once the standby has logged that
 * it sees the Leases again. A standby that counted the plugin's Lease from its own start (its sight
 * checked only from its lead on) would find that Lease expired past the grace and withdraw the
 * node's slices; one that kept its sight while it waited counts from its watch's return and keeps
 * them until the plugin, resumed once the standby leads, renews. Checked the other way once: with
 * the sight moved only while leading, this fails (the standby, at its lead, takes the plugin for
 * gone and empties the node's pool).
 */
@ExtendWith(TesseraLogsOnFailure.class)
class StandbyAfterItsWatchReturnsE2E {
  /**
   * From the API server's SIGTERM to its start again. Its stop alone takes up to 30 s: it refuses
   * requests at once but holds its watches open until it exits (SIGKILL after 30 s).
   */
  private static final Duration OUTAGE = Duration.ofSeconds(40);

  /** The controller's log line when its Lease watch is back (PoolInformers.checkLeaseSight). */
  private static final String REGAINED = "sees the plugins' Leases again";

  /** The node plugin's Lease (renewed every second). */
  private static final Duration PLUGIN_LEASE =
      Duration.parse("PT" + TesseraOnNode.PLUGIN_LEASE.toUpperCase(Locale.ROOT));

  /**
   * The grace after a plugin's Lease expires. With the plugin's Lease, less than the outage:
   * counted from before it, the plugin is gone by the time the API server is back. More than a
   * handover (the standby asks every 12 s, up to 2.2 times that apart) and the plugin's first
   * renewal once resumed: counted from the watch's return, the plugin renews within it.
   */
  private static final Duration LEASE_GRACE = Duration.ofSeconds(35);

  /**
   * The election's Lease: its renew deadline (two thirds, 60 s, after a retry period of 12 s)
   * outlasts the outage with more than a retry period to spare, so the leader keeps its lead.
   */
  private static final String ELECTION_LEASE = "90s";

  private static ClusterComponents components;
  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    Cluster cluster = Clusters.requireLocal();
    components = cluster.components().orElseThrow();
    tessera =
        TesseraOnNode.start(
            cluster,
            Kind.HOST,
            "H100-SXM5-80GB",
            2,
            Offering.EXCLUSIVE,
            Map.of(
                "TESSERA_CONTROLLER_LEASE_GRACE",
                LEASE_GRACE.toSeconds() + "s",
                "TESSERA_CONTROLLER_ELECTION_LEASE_DURATION",
                ELECTION_LEASE));
  }

  @AfterAll
  static void stop() throws Exception {
    // components is set before tessera is started: without it there is nothing to close.
    if (components != null) {
      components.startStoppedThenClose(tessera);
    }
  }

  @Test
  void aStandbyThatLeadsWithinTheGraceOfItsWatchsReturnKeepsTheLiveNodesSlices() throws Exception {
    try (var second = tessera.processes().startAnotherController()) {
      await().atMost(Duration.ofSeconds(30)).until(second::cachesSynced);
      Map<String, String> before = tessera.sliceUids();
      assertThat(before).isNotEmpty();
      var leader = tessera.processes().controller();

      tessera.processes().pausePlugin();
      Instant outage;
      try {
        outage = Instant.now();
        components.stop("kube-apiserver");
        sleepUntil(outage.plus(OUTAGE));
        components.start("kube-apiserver");
        // The watches come back after their backoff, which grew through the outage.
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> Files.readString(second.log()).contains(REGAINED));
        // Past the plugin's Lease and the grace, counted from before the outage.
        sleepUntil(outage.plus(PLUGIN_LEASE).plus(LEASE_GRACE).plusSeconds(1));
        assertThat(Files.readString(leader.log()))
            .as("the leader's log, through the outage")
            .doesNotContain("lost the lead");
        leader.close();
        await()
            .atMost(Duration.ofSeconds(45))
            .until(() -> Files.readString(second.log()).contains(" leading "));
      } finally {
        tessera.processes().resumePlugin();
      }
      assertThat(Files.readString(second.log()))
          .as("the standby lost sight of the Leases, saw them again, then led")
          .containsSubsequence("lost sight of the plugins' Leases", REGAINED, " leading ");
      // Several of its resyncs (2 s) and the plugin's renewals (1 s) later: the same slices,
      // never withdrawn and published again.
      Thread.sleep(Duration.ofSeconds(10));
      assertThat(tessera.sliceUids())
          .as("the node's slices (name -> UID) after the handover")
          .isEqualTo(before);
      assertThat(Files.readString(second.log()))
          .as("the standby's log")
          .doesNotContain("published the node's slices");
    }
  }

  private static void sleepUntil(Instant then) throws InterruptedException {
    Duration left = Duration.between(Instant.now(), then);
    if (left.isPositive()) {
      Thread.sleep(left);
    }
  }
}
