package dev.tessera.demo;

import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.bench.SeededNodes;
import dev.tessera.controller.publish.PoolSlices;
import dev.tessera.controller.render.Fleets;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import dev.tessera.plugin.k8s.GpuNodeReporter;
import dev.tessera.plugin.nvml.JnaNvml;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * The controller at fleet scale against the real API server of the local cluster: {@code nodes}
 * Node objects, each with a kubelet's status, a GpuNode of 8 simulated H100s (own UUIDs) and a live
 * plugin Lease, in one offering. Starts the controller (the shaded jar, production flags plus
 * {@code -Xmx}, logged in as its pod is: {@link ServiceAccountLogin}), measures the time until
 * every pool is published, the controller's RSS (current and peak), and the API writes and its CPU
 * during two resyncs with nothing changed, while every plugin Lease is renewed, and after every
 * Node's status is updated once; last, a handover ({@link Handover}): a second replica started
 * beside it, then the first stopped (and as many more as {@code -Dtessera.bench.handovers} asks).
 * Prints a Markdown table. Run it with {@code hack/bench-controller-scale}; it removes what it
 * created.
 *
 * <p>Beside it, in the same run and before the controller starts, the API server's own rate for the
 * same slices: a plain client creating every node's pool as the controller renders it, 16 nodes in
 * parallel, under another driver name (then deleted) — the ceiling publishing is measured against.
 *
 * <p>Arguments: {@code [nodes] [offering label] [max heap] [workers]} (defaults 1000, exclusive,
 * 192m, the controller's default).
 */
public final class ControllerScaleBenchmark {
  static final Path REPO =
      Path.of(System.getProperty("tessera.repo.dir", ".")).toAbsolutePath().normalize();
  static final String PREFIX = "scale-node-";
  private static final String RAW_DRIVER = "raw.bench.tessera.dev";

  /**
   * Where, and under which names, the measured controller runs: the production names for the
   * benchmark; the smoke runs beside whatever else the test cluster runs, so it uses its own.
   *
   * @param steady how long the controller is watched for writes once everything is published, first
   *     with nothing changing, then again while every plugin Lease is renewed
   * @param renewPeriod how often each plugin Lease is renewed in the second window
   * @param handovers how many handovers end the run, each to a replica started beside the last
   *     one's new leader (at least one)
   */
  record Setting(
      String driverName,
      String leaseNamespace,
      String electionNamespace,
      Duration resync,
      Duration steady,
      Duration renewPeriod,
      int handovers) {
    static Setting production() {
      return new Setting(
          "gpu.tessera.dev",
          "kube-node-lease",
          "kube-system",
          Duration.ofSeconds(30),
          Duration.ofSeconds(65), // two resyncs
          askedRenewPeriod(),
          Math.max(1, Integer.getInteger("tessera.bench.handovers", 1)));
    }

    /**
     * The node plugin's own period (a quarter of its 40 s Lease) unless {@code
     * tessera.bench.renewPeriod} (seconds) asks for one the box can carry.
     */
    private static Duration askedRenewPeriod() {
      String asked = System.getProperty("tessera.bench.renewPeriod", "").trim();
      return asked.isEmpty()
          ? Duration.ofSeconds(10)
          : Duration.ofMillis(Math.round(Double.parseDouble(asked) * 1000));
    }
  }

  /** What one run measured. */
  record Figures(
      int nodes,
      Offering offering,
      long slices,
      double seedSeconds,
      Raw raw,
      String workers,
      double convergeSeconds,
      double offeringsSeconds,
      double toFirstSeconds,
      String lists,
      String codeCacheCollections,
      double writePhaseSeconds,
      long rssConvergedKib,
      long rssSteadyKib,
      long peakRssKib,
      String heap,
      long steadyWrites,
      List<String> steadyWriteLines,
      Cpu rawCpu,
      Cpu controllerCpu,
      double controllerCpuSeconds,
      Cpu startCpu,
      double startControllerCpuSeconds,
      double steadySeconds,
      double steadyCpuSeconds,
      Duration renewPeriod,
      LeaseRenewals.Done renewals,
      List<String> renewWriteLines,
      double renewCpuSeconds,
      double renewSecondHalfCpuSeconds,
      Cpu renewCpu,
      Map<String, Long> renewReconciles,
      long renewalsSettled,
      NodeStatusRound statusRound,
      List<Handover> handovers) {

    /** The first handover, from the measured controller to the second replica. */
    Handover handover() {
      return handovers.get(0);
    }

    String table() {
      return String.format(
          Locale.ROOT,
          "| figure | value |%n|---|---|%n"
              + "| nodes (GpuNodes, Leases) | %d, offering %s, 8 x H100 each |%n"
              + "| ResourceSlices published | %d |%n"
              + "| seeding the API server | %.1f s |%n"
              + "| raw: a plain client creating the same %d slices, 16 nodes in parallel | %.1f s"
              + " (%.0f slices/s) |%n"
              + "| controller start to every pool published (workers: %s) | %.1f s (%.0f slices/s,"
              + " %.2f x raw) |%n"
              + "| controller start to every GpuNode's status.offering written (behind the slices) |"
              + " %.1f s |%n"
              + "| of which start to the first node published / first to last node published |"
              + " %.1f s / %.1f s (%.2f x raw) |%n"
              + "| the informers' lists before the first write: objects, time each |"
              + " %s |%n"
              + "| full collections the code cache set off until every pool was published: count"
              + " (pauses) | %s |%n"
              + "| controller RSS when converged / after the idle wait / peak | %d / %d / %d MiB"
              + " (-Xmx%s) |%n"
              + "| slice writes during the idle wait (nothing changed) | %d |%n"
              + "| controller CPU during the idle wait of %.0f s (resyncs) | %.1f s |%n"
              + "| CPU, raw phase: kube-apiserver / etcd / the plain client's JVM | %.1f / %.1f / %.1f"
              + " s |%n"
              + "| CPU, controller phase: kube-apiserver / etcd / controller / this JVM | %.1f / %.1f /"
              + " %.1f / %.1f s |%n"
              + "| of which until the first node was published: kube-apiserver / etcd / controller |"
              + " %.1f / %.1f / %.1f s |%n"
              + "| then every plugin Lease renewed once every %.1f s for %.0f s: renewals done /"
              + " asked / failed | %d / %d / %d (%.0f/s) |%n"
              + "| slice writes while the Leases were renewed / reconciles by outcome / renewals"
              + " passed over (node settled, plugin alive) | %d / %s / %d |%n"
              + "| CPU while the Leases were renewed: controller (per renewal) / kube-apiserver /"
              + " etcd / this JVM | %.1f s (%.0f µs) / %.1f / %.1f / %.1f s |%n"
              + "| of which the window's second half (the renewal path compiled): controller"
              + " (per renewal) | %.1f s (%.0f µs) |%n"
              + "| then every Node's status updated once, as its kubelet does: updates / seconds /"
              + " slice writes / reconciles by outcome / updates that named no node | %d / %.1f /"
              + " %d / %s / %d |%n"
              + "| CPU for those updates: controller (per update) | %.1f s (%.0f µs) |%n"
              + "| then a second replica started: its caches synced after / its RSS and CPU"
              + " before the handover | %s / %d MiB, %.1f s |%n"
              + "| the leader stopped (SIGTERM): the second leads after / has reconciled every"
              + " node after | %.2f s / %.2f s |%n"
              + "| the second's slice writes / reconciles by outcome | %d / %s |%n"
              + "%s",
          nodes,
          offering.label(),
          slices,
          seedSeconds,
          raw.slices(),
          raw.seconds(),
          raw.slices() / raw.seconds(),
          workers.isBlank() ? "default" : workers,
          convergeSeconds,
          slices / convergeSeconds,
          raw.seconds() / convergeSeconds,
          offeringsSeconds,
          toFirstSeconds,
          writePhaseSeconds,
          raw.seconds() / writePhaseSeconds,
          lists,
          codeCacheCollections,
          rssConvergedKib / 1024,
          rssSteadyKib / 1024,
          peakRssKib / 1024,
          heap,
          steadyWrites,
          steadySeconds,
          steadyCpuSeconds,
          rawCpu.apiServer(),
          rawCpu.etcd(),
          rawCpu.self(),
          controllerCpu.apiServer(),
          controllerCpu.etcd(),
          controllerCpuSeconds,
          controllerCpu.self(),
          startCpu.apiServer(),
          startCpu.etcd(),
          startControllerCpuSeconds,
          renewPeriod.toMillis() / 1e3,
          renewals.seconds(),
          renewals.renewed(),
          renewals.asked(),
          renewals.failed(),
          renewals.perSecond(),
          renewWriteLines.size(),
          renewReconciles,
          renewalsSettled,
          renewCpuSeconds,
          perRenewalMicros(renewCpuSeconds, renewals.renewed()),
          renewCpu.apiServer(),
          renewCpu.etcd(),
          renewCpu.self(),
          renewSecondHalfCpuSeconds,
          perRenewalMicros(
              renewSecondHalfCpuSeconds, renewals.renewed() - renewals.renewedAtHalf()),
          statusRound.updates(),
          statusRound.seconds(),
          statusRound.writeLines().size(),
          statusRound.reconciles(),
          statusRound.unchanged(),
          statusRound.controllerCpuSeconds(),
          perRenewalMicros(statusRound.controllerCpuSeconds(), statusRound.updates()),
          Double.isNaN(handover().followerSyncedSeconds())
              ? "not before it led"
              : String.format(Locale.ROOT, "%.1f s", handover().followerSyncedSeconds()),
          handover().followerRssKib() / 1024,
          handover().followerCpuSeconds(),
          handover().toLeadingSeconds(),
          handover().toReconciledSeconds(),
          handover().writeLines().size(),
          handover().reconciles(),
          furtherHandovers());
    }

    /**
     * The handovers after the first, each to a replica started beside the last one's new leader:
     * one handover's wait for the election is anywhere in 1 to 2.2 of the follower's retry periods
     * (less the while from its start to the leader's stop), so it takes many to compare two
     * periods.
     */
    private String furtherHandovers() {
      if (handovers.size() < 2) {
        return "";
      }
      var further = handovers.subList(1, handovers.size());
      return String.format(
          Locale.ROOT,
          "| handovers after the first (%d): the next replica leads after / has reconciled every"
              + " node after, median [min–max] (mean) | %s / %s |%n",
          further.size(),
          spread(further.stream().mapToDouble(Handover::toLeadingSeconds).sorted().toArray()),
          spread(further.stream().mapToDouble(Handover::toReconciledSeconds).sorted().toArray()));
    }

    private static String spread(double[] sorted) {
      int n = sorted.length;
      double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      return String.format(
          Locale.ROOT,
          "%.2f [%.2f–%.2f] (%.2f) s",
          median,
          sorted[0],
          sorted[n - 1],
          java.util.Arrays.stream(sorted).average().orElse(Double.NaN));
    }

    private static double perRenewalMicros(double cpuSeconds, long renewed) {
      return renewed <= 0 ? 0.0 : cpuSeconds / renewed * 1e6;
    }
  }

  private final Cluster cluster;
  private final KubernetesClient client;
  private final ExecutorService pool;
  private final Path work;
  private final Setting setting;
  private final NodeInventory template;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  ControllerScaleBenchmark(
      Cluster cluster,
      KubernetesClient client,
      ExecutorService pool,
      Path work,
      Setting setting,
      NodeInventory template) {
    this.cluster = cluster;
    this.client = client;
    this.pool = pool;
    this.work = work;
    this.setting = setting;
    this.template = template;
  }

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    Offering offering = Offering.fromLabel(args.length > 1 ? args[1] : "exclusive").orElseThrow();
    String heap = args.length > 2 ? args[2] : "192m";
    String workers = args.length > 3 ? args[3] : "";
    Cluster cluster = LocalBinaryCluster.fromEnvironment();
    cluster
        .unavailableReason()
        .ifPresent(
            reason -> {
              throw new IllegalStateException("no local cluster: " + reason);
            });
    Path work = Files.createTempDirectory("tessera-scale");
    boolean measured = false;
    try (KubernetesClient client = cluster.adminClient();
        ExecutorService pool = Executors.newFixedThreadPool(16)) {
      var bench =
          new ControllerScaleBenchmark(
              cluster, client, pool, work, Setting.production(), inventory(work));
      try {
        System.out.print(bench.run(nodes, offering, heap, workers).table());
        measured = true;
      } finally {
        bench.cleanUp();
      }
    } finally {
      // A failed run keeps the controller's log for whoever reads the failure.
      if (measured) {
        TestFiles.deleteTree(work);
      } else {
        System.err.println("kept " + work + " (the controller's log); delete it when read");
      }
    }
  }

  /**
   * Seeds {@code nodes} nodes, measures the raw rate, then starts the controller and measures it
   * until every pool is published and through the idle wait.
   */
  Figures run(int nodes, Offering offering, String heap, String workers) throws Exception {
    try (var in = Files.newInputStream(REPO.resolve("deploy/manifests/gpunode-crd.yaml"))) {
      client.load(in).forceConflicts().serverSideApply();
    }
    Thread.sleep(2000); // the CRD's endpoints come up
    long t0 = System.nanoTime();
    List<Future<String>> created = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      int n = i;
      created.add(pool.submit(() -> createNode(offering, n)));
    }
    List<String> nodeUids = new ArrayList<>();
    for (Future<String> f : created) {
      nodeUids.add(f.get());
    }
    double seedSeconds = (System.nanoTime() - t0) / 1e9;
    Cpu beforeRaw = Cpu.now();
    Raw raw = rawCreate(offering, nodeUids);
    Cpu rawCpu = Cpu.now().minus(beforeRaw);
    Cpu beforeController = Cpu.now();

    // The controller logs in as its pod does (a ServiceAccount's token), unless asked to use the
    // admin's kubeconfig as this benchmark did before the thirty-fifth session.
    boolean adminLogin = System.getProperty("tessera.bench.controllerLogin", "").equals("admin");
    ServiceAccountLogin login =
        adminLogin
            ? null
            : ServiceAccountLogin.create(
                client, setting.electionNamespace(), loginAccount(setting), work.resolve("login"));
    long start = System.nanoTime();
    LocalTime startedAt = LocalTime.now(); // the zone the controller logs in
    var env = new java.util.HashMap<String, String>();
    if (login == null) {
      env.put("TESSERA_CONTROLLER_KUBECONFIG", cluster.adminKubeconfig().toString());
    } else {
      env.putAll(login.env());
    }
    env.put("TESSERA_CONTROLLER_RESYNC", setting.resync().toMillis() + "ms");
    env.put("TESSERA_CONTROLLER_DRIVER_NAME", setting.driverName());
    env.put("TESSERA_CONTROLLER_LEASE_NAMESPACE", setting.leaseNamespace());
    env.put("TESSERA_CONTROLLER_ELECTION_NAMESPACE", setting.electionNamespace());
    env.put("TESSERA_CONTROLLER_METRICS_PORT", "0"); // a free port
    if (!workers.isBlank()) {
      env.put("TESSERA_CONTROLLER_WORKERS", workers);
    }
    try (login;
        ControllerProcess controller = startController(env, heap, work.resolve("controller"))) {
      // Watched through the controller's own log (a file read), and confirmed by one list of the
      // slices once every node says published: listing 9,000 slices of ~90 KiB every 2 s, as
      // this benchmark did, took the API server's cores from the writes it measures.
      Cpu startCpu = null; // until the first node is published: JVM, election, informers' lists
      double startControllerCpu = 0;
      while (publishedNodes(controller.log()).size() < nodes || publishedPools() < nodes) {
        if (startCpu == null && !publishedNodes(controller.log()).isEmpty()) {
          startCpu = Cpu.now().minus(beforeController);
          startControllerCpu = controller.cpuSeconds();
        }
        requireAlive(controller, "the controller");
        if (System.nanoTime() - start > Duration.ofMinutes(20).toNanos()) {
          throw new IllegalStateException("pools not published within 20 minutes");
        }
        Thread.sleep(publishedNodes(controller.log()).size() < nodes ? 250 : 2000);
      }
      var publishTimes = publishedNodes(controller.log()).values();
      LocalTime firstWrite = publishTimes.stream().min(LocalTime::compareTo).orElseThrow();
      LocalTime lastWrite = publishTimes.stream().max(LocalTime::compareTo).orElseThrow();
      // Until the last node's writes returned (its log line follows them), as the raw client's
      // clock stops at its last create: the confirming list of every slice (14 s for 4,500
      // mig-dynamic slices) is this benchmark's check, not the controller's publishing.
      double convergeSeconds = sinceStart(startedAt, lastWrite);
      Cpu controllerCpu = Cpu.now().minus(beforeController);
      double controllerSeconds = controller.cpuSeconds();
      String codeCacheCollections = codeCacheCollections(work.resolve("controller/gc.log"));
      long slices = sliceCount();
      long rssConverged = controller.rssKib();
      // The GpuNodes' status.offering is written behind the slices: the idle window starts once
      // the controller has none left to write, confirmed by one (paged) list.
      while (!offeringsWritten(controller, offering, nodes)) {
        if (System.nanoTime() - start > Duration.ofMinutes(20).toNanos()) {
          throw new IllegalStateException("offerings not written within 20 minutes");
        }
        Thread.sleep(1000);
      }
      double offeringsSeconds = (System.nanoTime() - start) / 1e9;
      long writesBefore = publishLines(controller.log());
      double cpuBefore = controller.cpuSeconds();
      Thread.sleep(setting.steady());
      List<String> steadyWriteLines = publishLinesAfter(controller.log(), writesBefore);
      long steadyWrites = steadyWriteLines.size();
      double steadyCpu = controller.cpuSeconds() - cpuBefore;
      // The same wait while every plugin renews its Lease, as on a live fleet: each renewal names
      // its node to the controller, which must find nothing to write, at a CPU cost per renewal.
      long renewWritesBefore = publishLines(controller.log());
      String metricsBefore = controller.metrics();
      Map<String, Long> reconcilesBefore = reconciles(metricsBefore);
      long settledBefore = counter(SETTLED_RENEWALS, metricsBefore);
      Cpu beforeRenewals = Cpu.now();
      double cpuBeforeRenewals = controller.cpuSeconds();
      var cpuAtHalf = new double[] {Double.NaN};
      LeaseRenewals.Done renewals =
          new LeaseRenewals(client, pool, setting.leaseNamespace(), 16)
              .run(
                  java.util.stream.IntStream.range(0, nodes)
                      .mapToObj(n -> "tessera-" + PREFIX + n)
                      .toList(),
                  setting.renewPeriod(),
                  setting.steady(),
                  () -> cpuAtHalf[0] = controller.cpuSeconds());
      double cpuAfterRenewals = controller.cpuSeconds();
      double renewCpu = cpuAfterRenewals - cpuBeforeRenewals;
      double renewSecondHalfCpu =
          Double.isNaN(cpuAtHalf[0]) ? 0.0 : cpuAfterRenewals - cpuAtHalf[0];
      Cpu renewApiCpu = Cpu.now().minus(beforeRenewals);
      List<String> renewWriteLines = publishLinesAfter(controller.log(), renewWritesBefore);
      String metricsAfter = controller.metrics();
      NodeStatusRound statusRound = nodeStatusRound(controller, nodes, metricsAfter);
      Map<String, Long> renewReconciles = reconcilesSince(reconcilesBefore, metricsAfter);
      long rssSteady = controller.rssKib();
      long peakRss = controller.peakRssKib();
      // Last: it stops the measured controller.
      List<Handover> handovers = handovers(controller, env, heap, nodes);
      return new Figures(
          nodes,
          offering,
          slices,
          seedSeconds,
          raw,
          workers,
          convergeSeconds,
          offeringsSeconds,
          sinceStart(startedAt, firstWrite),
          lists(controller.log()),
          codeCacheCollections,
          sinceStart(firstWrite, lastWrite),
          rssConverged,
          rssSteady,
          peakRss,
          heap,
          steadyWrites,
          steadyWriteLines,
          rawCpu,
          controllerCpu,
          controllerSeconds,
          startCpu == null ? controllerCpu : startCpu,
          startCpu == null ? controllerSeconds : startControllerCpu,
          setting.steady().toMillis() / 1e3,
          steadyCpu,
          setting.renewPeriod(),
          renewals,
          renewWriteLines,
          renewCpu,
          renewSecondHalfCpu,
          renewApiCpu,
          renewReconciles,
          counter(SETTLED_RENEWALS, metricsAfter) - settledBefore,
          statusRound,
          handovers);
    }
  }

  private static final Pattern RECONCILES =
      Pattern.compile(
          "(?m)^tessera_controller_reconcile_seconds_count\\{[^}]*outcome=\"([^\"]+)\"[^}]*\\}"
              + " (\\S+)$");

  /** Lease renewals the controller passed over: their node settled, its plugin alive. */
  private static final Pattern SETTLED_RENEWALS =
      Pattern.compile("(?m)^tessera_controller_lease_renewals_settled_total\\S* (\\S+)$");

  /**
   * A handover between two replicas: the second's caches synced this long after its start (NaN when
   * it listed nothing while it waited), its RSS and CPU just before the leader was stopped, then
   * how long after the leader's SIGTERM the second logged that it leads and had reconciled every
   * node (its reconciles at least the nodes, its queue empty), and what it wrote and reconciled.
   */
  record Handover(
      double followerSyncedSeconds,
      long followerRssKib,
      double followerCpuSeconds,
      double toLeadingSeconds,
      double toReconciledSeconds,
      List<String> writeLines,
      Map<String, Long> reconciles) {}

  /** The longest the second replica is given to fill its caches before the leader is stopped. */
  private static final Duration FOLLOWER_SYNC = Duration.ofSeconds(30);

  private static final Pattern QUEUE_DEPTH =
      Pattern.compile("(?m)^tessera_controller_queue_depth\\S* (\\S+)$");

  private static final Pattern LEADING =
      Pattern.compile("(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .* leading ");

  /**
   * {@link Setting#handovers} handovers in a row, the first from {@code leader}: each to a replica
   * started beside the current leader, which then stops. Stops the last replica too.
   */
  private List<Handover> handovers(
      ControllerProcess leader, Map<String, String> env, String heap, int nodes) throws Exception {
    var handovers = new ArrayList<Handover>();
    ControllerProcess current = leader;
    try {
      for (int i = 2; i <= setting.handovers() + 1; i++) {
        LocalTime started = LocalTime.now();
        ControllerProcess next = startController(env, heap, work.resolve("controller-" + i));
        try {
          handovers.add(handover(current, next, started, nodes));
        } catch (Exception | Error e) {
          next.close();
          throw e;
        }
        current = next;
      }
    } finally {
      if (current != leader) {
        current.close();
      }
    }
    return handovers;
  }

  /**
   * Gives {@code second}, started beside {@code leader} at {@code started}, until its caches have
   * synced (four lists logged, or {@link #FOLLOWER_SYNC}), then stops the leader as a rolling
   * upgrade does and measures until the second has reconciled every node: all were published, so it
   * should write nothing. The second goes on running, leading.
   */
  private Handover handover(
      ControllerProcess leader, ControllerProcess second, LocalTime started, int nodes)
      throws Exception {
    long deadline = System.nanoTime() + FOLLOWER_SYNC.toNanos();
    while (!second.cachesSynced() && System.nanoTime() < deadline) {
      requireAlive(second, "the second controller");
      Thread.sleep(100);
    }
    List<LocalTime> listed = listedTimes(second.log());
    double synced =
        listed.size() == ControllerProcess.INFORMERS
            ? sinceStart(started, listed.get(listed.size() - 1))
            : Double.NaN;
    long rss = second.rssKib();
    double cpu = second.cpuSeconds();
    LocalTime stoppedAt = LocalTime.now();
    long stopped = System.nanoTime();
    Future<?> stopping =
        pool.submit(
            () -> {
              leader.close();
              return null;
            });
    double reconciled = Double.NaN;
    Map<String, Long> reconciles = Map.of();
    while (Double.isNaN(reconciled)) {
      requireAlive(second, "the second controller");
      if (System.nanoTime() - stopped > Duration.ofMinutes(10).toNanos()) {
        throw new IllegalStateException("the second controller did not take over in 10 minutes");
      }
      String metrics = second.metrics();
      reconciles = reconciles(metrics);
      Matcher depth = QUEUE_DEPTH.matcher(metrics);
      if (reconciles.values().stream().mapToLong(Long::longValue).sum() >= nodes
          && depth.find()
          && Double.parseDouble(depth.group(1)) == 0) {
        reconciled = (System.nanoTime() - stopped) / 1e9;
      } else {
        Thread.sleep(50);
      }
    }
    stopping.get();
    Matcher leading = LEADING.matcher(Files.readString(second.log()));
    if (!leading.find()) {
      throw new IllegalStateException("the second controller reconciled without leading");
    }
    return new Handover(
        synced,
        rss,
        cpu,
        sinceStart(stoppedAt, LocalTime.parse(leading.group(1))),
        reconciled,
        publishLinesAfter(second.log(), 0),
        reconciles);
  }

  /**
   * One round of Node status updates: what the controller wrote, reconciled and passed over for
   * them, and the CPU it spent from the first update until 10 s after the last.
   */
  record NodeStatusRound(
      int updates,
      double seconds,
      List<String> writeLines,
      Map<String, Long> reconciles,
      long unchanged,
      double controllerCpuSeconds) {}

  /**
   * Updates every Node's status once (its conditions' heartbeat, as a kubelet's status update),
   * then waits 10 s: each update is an event of the controller's Node watch; none changes what a
   * plan reads.
   */
  private NodeStatusRound nodeStatusRound(
      ControllerProcess controller, int nodes, String metricsBefore) throws Exception {
    long writesBefore = publishLines(controller.log());
    Map<String, Long> reconcilesBefore = reconciles(metricsBefore);
    long unchangedBefore = counter(UNCHANGED_NODES, metricsBefore);
    double cpuBefore = controller.cpuSeconds();
    long start = System.nanoTime();
    List<Future<?>> updates = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      String name = PREFIX + n;
      updates.add(pool.submit(() -> patchNodeStatus(client, name)));
    }
    for (Future<?> f : updates) {
      f.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    // The same wait for every controller, whether it counts what it passed over or not.
    Thread.sleep(Duration.ofSeconds(10));
    double cpu = controller.cpuSeconds() - cpuBefore;
    String metricsAfter = controller.metrics();
    return new NodeStatusRound(
        nodes,
        seconds,
        publishLinesAfter(controller.log(), writesBefore),
        reconcilesSince(reconcilesBefore, metricsAfter),
        counter(UNCHANGED_NODES, metricsAfter) - unchangedBefore,
        cpu);
  }

  /** Node updates the controller passed over: UID and offering label unchanged. */
  private static final Pattern UNCHANGED_NODES =
      Pattern.compile("(?m)^tessera_controller_node_updates_unchanged_total\\S* (\\S+)$");

  /** A counter so far, from the controller's metrics' text; 0 where it has none. */
  private static long counter(Pattern counter, String metrics) {
    Matcher m = counter.matcher(metrics);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  /** The controller's reconciles since {@code before}, by outcome (from its metrics' text). */
  private static Map<String, Long> reconcilesSince(Map<String, Long> before, String metrics) {
    var byOutcome = new java.util.TreeMap<String, Long>();
    reconciles(metrics)
        .forEach(
            (outcome, count) -> byOutcome.put(outcome, count - before.getOrDefault(outcome, 0L)));
    return byOutcome;
  }

  /** The controller's reconciles so far, by outcome (from its metrics' text). */
  private static Map<String, Long> reconciles(String metrics) {
    var byOutcome = new java.util.TreeMap<String, Long>();
    Matcher m = RECONCILES.matcher(metrics);
    while (m.find()) {
      byOutcome.put(m.group(1), (long) Double.parseDouble(m.group(2)));
    }
    return byOutcome;
  }

  static NodeInventory inventory(Path work) throws Exception {
    Path root = SimulatedNode.layOut(work.resolve("driver-root"), "H100-SXM5-80GB", 8);
    try (var nvml = JnaNvml.open(root)) {
      return GpuDiscovery.onNode(nvml, root).discover();
    }
  }

  /**
   * CPU seconds used so far by the API server, etcd and this JVM: where a phase's time went, on
   * cores they all share.
   */
  record Cpu(double apiServer, double etcd, double self) {
    static Cpu now() throws java.io.IOException {
      return new Cpu(
          ofCommand("kube-apiserver"),
          ofCommand("etcd"),
          ProcessHandle.current().info().totalCpuDuration().orElseThrow().toMillis() / 1e3);
    }

    Cpu minus(Cpu before) {
      return new Cpu(apiServer - before.apiServer, etcd - before.etcd, self - before.self);
    }

    /** utime + stime of every process with that command name, in seconds (USER_HZ 100). */
    private static double ofCommand(String command) throws java.io.IOException {
      double seconds = 0;
      try (var procs = Files.list(Path.of("/proc"))) {
        for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
          try {
            if (!Files.readString(proc.resolve("comm")).trim().equals(command)) {
              continue;
            }
            String stat = Files.readString(proc.resolve("stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            seconds += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
          } catch (java.io.IOException gone) {
            // the process ended while the list was read
          }
        }
      }
      return seconds;
    }
  }

  /**
   * The controller's jar ({@code -Dtessera.bench.controllerJar}, else the build's) on this JVM, to
   * compare two builds in one hour; or, with {@code -Dtessera.bench.controllerImage} naming an
   * image's root filesystem unpacked ({@code hack/bench-controller-scale} unpacks {@code
   * hack/images}' archive), the image's own runtime, jar and AOT cache (the entrypoint's {@code
   * -XX:AOTCache}; left out with {@code -Dtessera.bench.controllerAot=off}), which only that
   * runtime can map.
   */
  private ControllerProcess startController(Map<String, String> env, String heap, Path dir)
      throws java.io.IOException {
    String image = System.getProperty("tessera.bench.controllerImage", "");
    if (image.isBlank()) {
      String jar = System.getProperty("tessera.bench.controllerJar", "");
      return ControllerProcess.start(
          jar.isBlank() ? REPO.resolve("controller/target/tessera-controller.jar") : Path.of(jar),
          dir,
          env,
          jvmOptions(heap, dir));
    }
    Path tessera = Path.of(image).resolve("opt/tessera");
    var options = new ArrayList<String>();
    if (!System.getProperty("tessera.bench.controllerAot", "").equals("off")) {
      // AOTMode=on: the run fails, rather than measuring a start without the cache, where the
      // runtime cannot map it.
      options.addAll(List.of("-XX:AOTCache=" + tessera.resolve("app.aot"), "-XX:AOTMode=on"));
    }
    options.addAll(jvmOptions(heap, dir));
    return ControllerProcess.start(
        tessera.resolve("jre/bin/java"), tessera.resolve("app.jar"), dir, env, options);
  }

  /**
   * The flags the controller's image runs with ({@code controller/jvm.options}), its heap given
   * here instead of as a share of a container's memory, its GC logged to {@code dir/gc.log}, plus
   * any in {@code -Dtessera.bench.controllerJvm} (space-separated: a profiler, another GC).
   */
  private static List<String> jvmOptions(String heap, Path dir) throws java.io.IOException {
    var options = new ArrayList<String>();
    for (String option : JvmOptions.read(REPO.resolve("controller/jvm.options"))) {
      if (!option.startsWith("-XX:MaxRAMPercentage")) {
        options.add(option);
      }
    }
    options.add("-Xmx" + heap);
    options.add("-Xlog:gc:file=" + dir.resolve("gc.log"));
    String extra = System.getProperty("tessera.bench.controllerJvm", "").trim();
    if (!extra.isEmpty()) {
      options.addAll(List.of(extra.split("\\s+")));
    }
    return options;
  }

  private static final Pattern CODE_CACHE_COLLECTION =
      Pattern.compile("Pause Full \\(CodeCache GC Threshold\\) .* ([0-9.]+)ms$");

  /**
   * The full collections of the heap the JVM made to unload code, from a controller's GC log: how
   * many, and each one's pause ("0" for none). With SerialGC each stops the controller.
   */
  static String codeCacheCollections(Path gcLog) throws java.io.IOException {
    List<String> pauses =
        Files.readAllLines(gcLog).stream()
            .map(CODE_CACHE_COLLECTION::matcher)
            .filter(Matcher::find)
            .map(m -> Math.round(Double.parseDouble(m.group(1))) + " ms")
            .toList();
    return pauses.isEmpty() ? "0" : pauses.size() + " (" + String.join(", ", pauses) + ")";
  }

  /** How long the plain client took for how many slices. */
  record Raw(long slices, double seconds) {}

  /**
   * Creates every node's pool as the controller renders it, under {@link #RAW_DRIVER}, 16 nodes at
   * once, one node's slices in order (as one controller worker writes them); then deletes them all.
   */
  private Raw rawCreate(Offering offering, List<String> nodeUids) throws Exception {
    var renderer = new SliceRenderer();
    var poolSlices = new PoolSlices(RAW_DRIVER);
    var api = client.dynamicResourceAllocation().v1().resourcesSlices();
    var counted = new java.util.concurrent.atomic.AtomicLong();
    long start = System.nanoTime();
    List<Future<?>> writes = new ArrayList<>();
    for (int i = 0; i < nodeUids.size(); i++) {
      int n = i;
      writes.add(
          pool.submit(
              () -> {
                var slices =
                    poolSlices.slices(
                        PREFIX + n,
                        nodeUids.get(n),
                        1,
                        renderer.render(Fleets.withOwnUuids(template, n), offering));
                slices.forEach(slice -> api.resource(slice).create());
                counted.addAndGet(slices.size());
              }));
    }
    for (Future<?> f : writes) {
      f.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    api.withField("spec.driver", RAW_DRIVER).delete();
    while (!api.withField("spec.driver", RAW_DRIVER).list().getItems().isEmpty()) {
      Thread.sleep(1000);
    }
    return new Raw(counted.get(), seconds);
  }

  /**
   * The inventory as the node plugin writes it into its GpuNode's status: each MIG profile table
   * once ({@link InventoryStatus}); with {@code -Dtessera.bench.inlineMigProfiles=true}, as plugins
   * before decision 56 wrote it, every GPU with its own copy (to measure a controller beside it).
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> statusInventory(NodeInventory inventory) {
    Map<String, Object> record = JSON.convertValue(inventory, Map.class);
    return Boolean.getBoolean("tessera.bench.inlineMigProfiles")
        ? record
        : InventoryStatus.compact(record);
  }

  /** Creates the node, its GpuNode and its plugin Lease; returns the Node's UID. */
  private String createNode(Offering offering, int n) {
    return seedNode(
        client,
        PREFIX + n,
        offering,
        Fleets.withOwnUuids(template, n),
        setting.leaseNamespace(),
        "scale-benchmark");
  }

  /**
   * A node as the controller meets it: the Node labelled with its offering and with a status as its
   * kubelet writes it ({@link KubeletNodeStatus}), its GpuNode (owned by the Node) reporting {@code
   * inventory}, and its plugin's Lease in {@code leaseNamespace}, held for an hour by {@code
   * holder}. Returns the Node's UID.
   */
  static String seedNode(
      KubernetesClient client,
      String name,
      Offering offering,
      NodeInventory inventory,
      String leaseNamespace,
      String holder) {
    String uid =
        SeededNodes.seed(
            client,
            name,
            offering,
            inventory.gpus().size(),
            statusInventory(inventory),
            leaseNamespace,
            holder);
    patchNodeStatus(client, name);
    return uid;
  }

  /**
   * Writes the Node's status as its kubelet would now ({@link KubeletNodeStatus}), as a merge
   * patch, not a replace: the node lifecycle controller writes a new Node at once.
   */
  static void patchNodeStatus(KubernetesClient client, String name) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withStatus(KubeletNodeStatus.of(name, Instant.now()))
                .build())
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE));
  }

  private static final Pattern OFFERINGS_PENDING =
      Pattern.compile("(?m)^tessera_controller_offering_writes_pending\\S* (\\S+)$");

  /**
   * Whether the controller has no {@code status.offering} left to write (its gauge) and every
   * benchmark GpuNode says the offering.
   */
  private boolean offeringsWritten(ControllerProcess controller, Offering offering, int nodes)
      throws Exception {
    Matcher pending = OFFERINGS_PENDING.matcher(controller.metrics());
    if (!pending.find() || Double.parseDouble(pending.group(1)) > 0) {
      return false;
    }
    var api = client.genericKubernetesResources(GpuNodeReporter.GPU_NODES);
    var gpuNodes =
        api.list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(500L).build());
    long said = 0;
    while (true) {
      for (var gpuNode : gpuNodes.getItems()) {
        if (gpuNode.getMetadata().getName().startsWith(PREFIX)
            && gpuNode.getAdditionalProperties().get("status") instanceof Map<?, ?> status
            && offering.label().equals(status.get("offering"))) {
          said++;
        }
      }
      String next = gpuNodes.getMetadata().getContinue();
      if (next == null || next.isEmpty()) {
        break;
      }
      gpuNodes =
          api.list(
              new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                  .withLimit(500L)
                  .withContinue(next)
                  .build());
    }
    return said == nodes;
  }

  /** Fails the run, with the end of its log, when {@code controller} has exited. */
  private static void requireAlive(ControllerProcess controller, String which)
      throws java.io.IOException {
    if (!controller.alive()) {
      throw new IllegalStateException(
          which + " died; see " + controller.log() + "\n" + TestFiles.tail(controller.log(), 20));
    }
  }

  /** Pools whose highest generation is complete. */
  private long publishedPools() {
    var byPool = new java.util.HashMap<String, List<Long>>();
    var counts = new java.util.HashMap<String, Long>();
    for (var slice : ownSlices()) {
      var poolSpec = slice.getSpec().getPool();
      if (!poolSpec.getName().startsWith(PREFIX)) {
        continue;
      }
      byPool
          .computeIfAbsent(poolSpec.getName(), k -> new ArrayList<>())
          .add(poolSpec.getGeneration());
      counts.put(poolSpec.getName(), poolSpec.getResourceSliceCount());
    }
    return byPool.entrySet().stream()
        .filter(e -> e.getValue().size() == counts.get(e.getKey()))
        .count();
  }

  private long sliceCount() {
    return ownSlices().stream()
        .filter(s -> s.getSpec().getPool().getName().startsWith(PREFIX))
        .count();
  }

  /** Seconds from {@code from} to {@code to}, the log's times of day (a run may pass midnight). */
  private static double sinceStart(LocalTime from, LocalTime to) {
    long millis = Duration.between(from, to).toMillis();
    return (millis < 0 ? millis + Duration.ofDays(1).toMillis() : millis) / 1e3;
  }

  /** The measured controller's slices, of every node. */
  List<ResourceSlice> ownSlices() {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourcesSlices()
        .withField("spec.driver", setting.driverName())
        .list()
        .getItems();
  }

  private static final Pattern PUBLISHED =
      Pattern.compile(
          "^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*published the node's slices.* node=\"([^\"]+)\"");

  /** The nodes the controller's log says it published, each with the time of its last publish. */
  private static Map<String, LocalTime> publishedNodes(Path log) throws java.io.IOException {
    var nodes = new java.util.HashMap<String, LocalTime>();
    for (String line : Files.readAllLines(log)) {
      Matcher m = PUBLISHED.matcher(line);
      if (m.find()) {
        nodes.put(m.group(2), LocalTime.parse(m.group(1)));
      }
    }
    return nodes;
  }

  private static final Pattern LISTED =
      Pattern.compile(
          " listed .*resource=\"([^\"]+)\".* objects=\"?(\\d+)\"?.* tookMs=\"?(\\d+)\"?");

  /** What the controller's log says each informer listed at its start, and how long it took. */
  private static String lists(Path log) throws java.io.IOException {
    var lists = new ArrayList<String>();
    for (String line : Files.readAllLines(log)) {
      Matcher m = LISTED.matcher(line);
      if (m.find()) {
        lists.add(m.group(1) + " " + m.group(2) + " in " + m.group(3) + " ms");
      }
    }
    return lists.isEmpty() ? "not logged" : String.join(", ", lists);
  }

  private static final Pattern LISTED_AT =
      Pattern.compile("^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .* listed .*resource=");

  /** When the controller's log says each informer's list was done, in order. */
  private static List<LocalTime> listedTimes(Path log) throws java.io.IOException {
    var times = new ArrayList<LocalTime>();
    for (String line : Files.readAllLines(log)) {
      Matcher m = LISTED_AT.matcher(line);
      if (m.find()) {
        times.add(LocalTime.parse(m.group(1)));
      }
    }
    return times;
  }

  private static long publishLines(Path log) throws java.io.IOException {
    return publishLinesAfter(log, 0).size();
  }

  /** The controller's "published" log lines after the first {@code skip} of them. */
  private static List<String> publishLinesAfter(Path log, long skip) throws java.io.IOException {
    return Files.readAllLines(log).stream()
        .filter(l -> l.contains("published the node's slices"))
        .skip(skip)
        .toList();
  }

  /**
   * The ServiceAccount (in the election namespace) and ClusterRoleBinding the measured controller
   * logs in with: one per setting, so the smoke and a benchmark never share one.
   */
  static String loginAccount(Setting setting) {
    return "tessera-scale-bench-" + setting.electionNamespace();
  }

  /**
   * Deletes the nodes (their GpuNodes and slices follow by owner), the Leases, and the controller's
   * election Lease when it is not the production one.
   */
  void cleanUp() {
    client.nodes().list().getItems().stream()
        .filter(n -> n.getMetadata().getName().startsWith(PREFIX))
        .forEach(n -> client.nodes().withName(n.getMetadata().getName()).delete());
    var leases = client.leases().inNamespace(setting.leaseNamespace());
    leases.list().getItems().stream()
        .filter(l -> l.getMetadata().getName().startsWith("tessera-" + PREFIX))
        .forEach(l -> leases.withName(l.getMetadata().getName()).delete());
  }
}
