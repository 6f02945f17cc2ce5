package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.demo.CampaignPlan.Kill;
import dev.tessera.demo.CampaignPlan.Round;
import dev.tessera.demo.TesseraDeployment.Kind;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A randomized crash campaign on the real cluster: claims of every kind ({@link ClaimKind}) are
 * created and deleted by pods as a user would, while the node plugin is SIGKILLed at random moments
 * (right after the kubelet asked for a prepare or an unprepare, or while nothing is in flight) and
 * started again as the kubelet restarts a container, and in some rounds the NVML simulator is slow
 * or failing at a random call of the round's path ({@link SimulatorTrouble}). After each wave and
 * at the end of each round: every pod runs or says clearly why not ({@link PodOutcomes}), and the
 * node has no leak nor inconsistency ({@link NodeLeaks}).
 *
 * <p>Rounds cycle through the offerings by relabelling the node (a quarter of the rounds each), on
 * two simulated nodes ({@link CampaignNode} says why two). The plugin and controller run as host
 * processes, so the test can SIGKILL the plugin and its tools while sparing the MPS daemons it
 * started, as a container kill spares daemons that live outside the plugin's pod.
 *
 * <p>{@code -Dtessera.campaign.seed=N} replays a campaign (printed at the start and in every
 * failure), {@code -Dtessera.campaign.rounds=N} sets its length (default 10, CI's smoke).
 */
@ExtendWith(TesseraLogsOnFailure.class)
class CrashCampaignE2E {
  private static final long SEED =
      Long.getLong("tessera.campaign.seed", ThreadLocalRandom.current().nextLong());
  private static final int ROUNDS = Integer.getInteger("tessera.campaign.rounds", 10);
  private static final Duration SETTLE = Duration.ofSeconds(150);
  private static final Duration CLEAN = Duration.ofSeconds(60);

  private static Cluster cluster;
  private static KubernetesClient client;
  private static TesseraOnNode tessera;

  private final CampaignTally tally = new CampaignTally();
  private final Random moments = new Random(SEED);
  private NodeLeaks leaks;
  private Round round;

  @BeforeAll
  static void start() throws Exception {
    cluster = Clusters.require();
    client = cluster.adminClient();
    for (String yaml : ClaimKind.commonYaml()) {
      client.resource(yaml).forceConflicts().serverSideApply();
    }
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (tessera != null) {
        tessera.close();
      }
    } finally {
      for (String ns : List.of(ClaimKind.NAMESPACE, ClaimKind.ADMIN_NAMESPACE)) {
        client.namespaces().withName(ns).delete();
      }
      client.close();
    }
  }

  @Test
  void everyClaimRunsOrSaysWhyAndNothingLeaksWhileThePluginIsKilledAtRandom() throws Exception {
    CampaignPlan plan = CampaignPlan.draw(SEED, ROUNDS);
    System.out.printf(
        "%n== crash campaign: seed %d, %d rounds (replay: %s)%n", SEED, ROUNDS, replay());
    plan.rounds().forEach(r -> System.out.println("   " + r));
    long started = System.nanoTime();
    try {
      for (CampaignNode node : CampaignNode.values()) {
        List<Round> rounds = plan.rounds().stream().filter(r -> r.node() == node).toList();
        if (!rounds.isEmpty()) {
          runOn(node, rounds);
        }
      }
    } finally {
      tally.seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
      System.out.printf("%n== crash campaign seed %d: %s%n", SEED, tally);
    }
    assertThat(tally.leaks).as(context("leaks found")).isZero();
  }

  private void runOn(CampaignNode node, List<Round> rounds) throws Exception {
    tessera =
        TesseraOnNode.start(
            cluster,
            Kind.HOST,
            CampaignNode.PROFILE,
            node.gpus,
            rounds.get(0).offering(),
            Map.of(),
            node.simulatorArgs.toArray(String[]::new));
    leaks =
        new NodeLeaks(
            cluster,
            tessera.client(),
            tessera.driverRoot(),
            SimulatedGpus.read(tessera.driverRoot()));
    var live = new ArrayList<CampaignWorkload>();
    try {
      for (Round r : rounds) {
        round = r;
        run(r, live);
      }
    } finally {
      round = null;
      // Deleted while the plugin still runs, so the kubelet can unprepare them.
      live.forEach(w -> w.delete(client));
      await().atMost(CLEAN).until(() -> live.stream().allMatch(w -> w.gone(client)));
      tessera.close();
      tessera = null;
    }
  }

  private void run(Round r, List<CampaignWorkload> live) throws Exception {
    System.out.printf("%n== %s%n", r);
    long began = System.nanoTime();
    tally.rounds++;
    tessera.label(r.offering());
    awaitClean(
        "the pool published for " + r.offering().label(),
        () -> leaks.sliceMismatches(r.offering()));
    r.trouble().apply(tessera);
    if (r.trouble().injected()) {
      tally.faults++;
    }

    List<CampaignWorkload> first = workloads(r, "a", r.firstWave());
    long mark = logSize();
    create(first, live);
    if (r.kill() == Kill.PREPARE) {
      killAfter("prepare requested by the kubelet", mark, r.killDelayMillis());
    }
    awaitSettled(first, "the first wave");
    if (r.kill() == Kill.IDLE) {
      kill("idle");
    }

    List<CampaignWorkload> going = first.subList(0, r.deletedOfFirst());
    List<CampaignWorkload> second = workloads(r, "b", r.secondWave());
    mark = logSize();
    delete(going, live);
    create(second, live);
    if (r.killInSecondWave()) {
      killAfter("requested by the kubelet", mark, moments.nextInt(300));
    }
    await().atMost(CLEAN).until(() -> going.stream().allMatch(w -> w.gone(client)));
    awaitSettled(List.copyOf(live), "the second wave");
    awaitClean("with claims held", () -> leaks.all(r.offering()));

    mark = logSize();
    List<CampaignWorkload> all = List.copyOf(live);
    delete(all, live);
    if (r.kill() == Kill.UNPREPARE) {
      killAfter("unprepare requested by the kubelet", mark, r.killDelayMillis());
    }
    await().atMost(CLEAN).until(() -> all.stream().allMatch(w -> w.gone(client)));
    awaitClean("drained", () -> leaks.all(r.offering()));
    if (r.trouble().clear(tessera)) {
      tally.faultsHit++;
    }
    System.out.printf(
        "--- round %d clean after %d s%n",
        r.index(), Duration.ofNanos(System.nanoTime() - began).toSeconds());
  }

  private static List<CampaignWorkload> workloads(Round r, String wave, List<ClaimKind> kinds) {
    var out = new ArrayList<CampaignWorkload>();
    for (int i = 0; i < kinds.size(); i++) {
      out.add(new CampaignWorkload("r%d%s%d".formatted(r.index(), wave, i), kinds.get(i)));
    }
    return out;
  }

  private void create(List<CampaignWorkload> workloads, List<CampaignWorkload> live) {
    for (CampaignWorkload w : workloads) {
      w.create(client);
      live.add(w);
      tally.claims += w.claims();
      tally.pods += w.kind().pods;
    }
  }

  private static void delete(List<CampaignWorkload> workloads, List<CampaignWorkload> live) {
    workloads.forEach(w -> w.delete(client));
    live.removeAll(workloads);
  }

  /**
   * Waits until every pod runs; those that still do not after {@link #SETTLE} must say why (and are
   * counted), else the round fails.
   */
  private void awaitSettled(List<CampaignWorkload> workloads, String what) {
    try {
      await()
          .atMost(SETTLE)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  workloads.stream()
                      .allMatch(
                          w ->
                              w.pods(client).size() == w.kind().pods
                                  && w.pods(client).stream().allMatch(PodOutcomes::running)));
    } catch (ConditionTimeoutException e) {
      var pods = workloads.stream().flatMap(w -> w.pods(client).stream()).toList();
      List<String> unclear = PodOutcomes.unclear(client, pods);
      assertThat(unclear).as(context(what + ": pods that neither run nor say why")).isEmpty();
      tally.stuckClearly += pods.stream().filter(p -> !PodOutcomes.running(p)).count();
    }
  }

  /** A check whose findings must go within {@link #CLEAN}; what is left counts as leaks. */
  private interface Check {
    List<String> findings() throws IOException;
  }

  private void awaitClean(String stage, Check check) throws IOException {
    try {
      await()
          .atMost(CLEAN)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(() -> check.findings().isEmpty());
    } catch (ConditionTimeoutException e) {
      List<String> found = check.findings();
      // What the plugin and the controller did meanwhile: a leak is read from their logs.
      System.out.print(tessera.deployment().logs(TesseraLogsOnFailure.LINES));
      tally.leaks += found.size();
      assertThat(found).as(context(stage)).isEmpty();
    }
  }

  /** Kills the plugin {@code delayMillis} after its log names the kubelet's call {@code what}. */
  private void killAfter(String what, long mark, int delayMillis) throws Exception {
    Path log = tessera.processes().plugin().log();
    String moment = what;
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> since(log, mark).contains(what));
      Thread.sleep(delayMillis); // the moment itself, drawn from the seed
    } catch (ConditionTimeoutException e) {
      moment = what + " (none came in 60 s)";
    }
    kill(moment + " +" + delayMillis + " ms");
  }

  private void kill(String moment) throws Exception {
    TesseraProcesses processes = tessera.processes();
    processes.killPlugin(leaks.mpsDaemonProcesses());
    tally.kills++;
    System.out.printf("--- plugin SIGKILLed at: %s%n", moment);
    int failed = processes.restartPlugin(5);
    tally.failedStarts += failed;
    if (failed > 0) {
      System.out.printf("--- the plugin's start failed %d times before it registered%n", failed);
    }
  }

  private static String since(Path log, long mark) throws IOException {
    byte[] bytes = Files.readAllBytes(log);
    int from = (int) Math.min(mark, bytes.length);
    return new String(bytes, from, bytes.length - from, java.nio.charset.StandardCharsets.UTF_8);
  }

  private long logSize() throws IOException {
    return Files.size(tessera.processes().plugin().log());
  }

  private String context(String what) {
    return "crash campaign seed %d%s: %s (replay: %s)"
        .formatted(SEED, round == null ? "" : ", " + round, what, replay());
  }

  private static String replay() {
    return "hack/test-e2e -Dit.test=CrashCampaignE2E -Dtessera.campaign.seed=%d -Dtessera.campaign.rounds=%d"
        .formatted(SEED, ROUNDS);
  }

  /** What the campaign did, printed at its end. */
  private static final class CampaignTally {
    int rounds;
    int kills;
    int failedStarts;
    int claims;
    int pods;
    int faults;
    int faultsHit;
    long stuckClearly;
    int leaks;
    long seconds;

    @Override
    public String toString() {
      return ("%d rounds, %d kills (%d failed restarts), %d claims created (%d pods), %d faults"
              + " injected (%d failing calls hit), %d pods stuck with a clear error, %d leaks"
              + " found, %d s")
          .formatted(
              rounds,
              kills,
              failedStarts,
              claims,
              pods,
              faults,
              faultsHit,
              stuckClearly,
              leaks,
              seconds);
    }
  }
}
