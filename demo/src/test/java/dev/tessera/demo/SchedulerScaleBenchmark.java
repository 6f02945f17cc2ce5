package dev.tessera.demo;

import dev.tessera.api.DriverNames;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.controller.publish.PoolSlices;
import dev.tessera.controller.render.Fleets;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
import dev.tessera.plugin.discovery.GpuDiscovery;
import dev.tessera.plugin.it.SimulatedNode;
import dev.tessera.plugin.it.TestFiles;
import dev.tessera.plugin.nvml.JnaNvml;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scheduler's pods/s with Tessera's slices (issue 13): on the local cluster's real API server
 * and kube-scheduler, {@code nodes} fake Nodes (kwok keeps them Ready when
 * hack/bench-scheduler-scale runs it; the Node objects are written Ready either way) with the
 * slices Tessera's renderer and PoolSlices make for 8 simulated H100s each, then {@code pods} pods
 * each with a one-device claim. The pods and claims are written while the scheduler is stopped
 * (hack/cluster/component), so the figure is the scheduler's, not the client's create rate: pods/s
 * from its first bind to its last.
 *
 * <p>Per offering: a whole GPU (exclusive), a 1g.10gb placement (mig-dynamic), a 10Gi share of a
 * GPU (shared); each as published and, where the slices carry counters, the same devices published
 * without them ({@code no-counters}) or with them in one pool per GPU ({@code pool-per-gpu}, {@link
 * PoolPerGpu}). Arguments: {@code [nodes] [pods] [offerings] [variants]} (defaults 500, 2000,
 * {@code exclusive,mig-dynamic,shared}, {@code published,no-counters}). Prints Markdown.
 */
public final class SchedulerScaleBenchmark {
  private static final Path REPO =
      Path.of(System.getProperty("tessera.repo.dir", ".")).toAbsolutePath().normalize();
  private static final String D = DriverNames.DEFAULT_DRIVER;
  static final String PREFIX = "sched-node-";
  static final String NAMESPACE = "sched-bench";
  private static final Map<String, String> FAKE = Map.of("kwok.x-k8s.io/node", "fake");

  /** One measured run. */
  record Run(
      Offering offering,
      String variant,
      int slices,
      int pods,
      int bound,
      double firstToLastSeconds,
      double startToLastSeconds) {
    double podsPerSecond() {
      return firstToLastSeconds <= 0 ? 0 : bound / firstToLastSeconds;
    }
  }

  private final KubernetesClient client;
  private final ClusterComponents components;
  private final NodeInventory template;
  private final ExecutorService pool;
  private final java.util.concurrent.ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor();
  private boolean createdDeviceClasses;

  SchedulerScaleBenchmark(
      KubernetesClient client,
      ClusterComponents components,
      NodeInventory template,
      ExecutorService pool) {
    this.client = client;
    this.components = components;
    this.template = template;
    this.pool = pool;
  }

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int pods = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    List<Offering> offerings =
        java.util.Arrays.stream(
                (args.length > 2 ? args[2] : "exclusive,mig-dynamic,shared").split(","))
            .map(label -> Offering.fromLabel(label).orElseThrow())
            .toList();
    List<String> variants =
        List.of((args.length > 3 ? args[3] : "published,no-counters").split(","));
    Cluster cluster = LocalBinaryCluster.fromEnvironment();
    cluster
        .unavailableReason()
        .ifPresent(
            reason -> {
              throw new IllegalStateException("no local cluster: " + reason);
            });
    Path work = Files.createTempDirectory("tessera-sched");
    NodeInventory template;
    try {
      template = inventory(work);
    } finally {
      TestFiles.deleteTree(work); // the simulated node is read once, for its inventory
    }
    try (KubernetesClient client = cluster.adminClient();
        ExecutorService pool = Executors.newFixedThreadPool(16)) {
      var bench =
          new SchedulerScaleBenchmark(client, cluster.components().orElseThrow(), template, pool);
      long t0 = System.nanoTime();
      bench.setUp(nodes);
      System.out.printf(
          Locale.ROOT,
          "%d fake nodes (8 x H100 each) written Ready in %.1f s; %d pods per run, %s%n%n",
          nodes,
          (System.nanoTime() - t0) / 1e9,
          pods,
          Instant.now());
      System.out.println(
          "| offering | slices | claim | pods bound | first→last bind | pods/s | scheduler start→last"
              + " bind |");
      System.out.println("|---|---|---|---|---|---|---|");
      try {
        for (Offering offering : offerings) {
          for (String variant : variants) {
            if (!variant.equals("published") && offering != Offering.MIG_DYNAMIC) {
              continue; // only mig-dynamic's slices carry counters
            }
            Run run = bench.run(nodes, pods, offering, variant);
            System.out.printf(
                Locale.ROOT,
                "| %s | %s (%d) | %s | %d of %d | %.1f s | **%.1f** | %.1f s |%n",
                offering.label(),
                variant,
                run.slices(),
                request(offering),
                run.bound(),
                run.pods(),
                run.firstToLastSeconds(),
                run.podsPerSecond(),
                run.startToLastSeconds());
          }
        }
      } finally {
        bench.tearDown();
      }
    }
  }

  /** The namespace, the DeviceClasses and {@code nodes} fake Nodes, Ready. */
  void setUp(int nodes) throws Exception {
    // A chart installed later must find no DeviceClass it does not own: made here, removed here.
    if (client.dynamicResourceAllocation().v1().deviceClasses().withName(D).get() == null) {
      try (var in = Files.newInputStream(REPO.resolve("deploy/manifests/deviceclasses.yaml"))) {
        client.load(in).forceConflicts().serverSideApply();
      }
      createdDeviceClasses = true;
    }
    if (client.namespaces().withName(NAMESPACE).get() == null) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .create();
    }
    List<Future<?>> created = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      String name = PREFIX + i;
      created.add(pool.submit(() -> createNode(name)));
    }
    for (Future<?> f : created) {
      f.get();
    }
    if (System.getenv("TESSERA_BENCH_KWOK") == null) {
      // Without kwok the node lifecycle controller would find them unreachable after its grace
      // period and taint them: the benchmark renews their node Leases itself.
      heartbeats.scheduleAtFixedRate(() -> renewLeases(nodes), 0, 10, TimeUnit.SECONDS);
    }
  }

  private void renewLeases(int nodes) {
    var leases = client.leases().inNamespace("kube-node-lease");
    for (int i = 0; i < nodes; i++) {
      String name = PREFIX + i;
      try {
        leases
            .resource(
                new LeaseBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(name)
                    .withLeaseDurationSeconds(40)
                    .withRenewTime(ZonedDateTime.now())
                    .endSpec()
                    .build())
            .forceConflicts()
            .serverSideApply();
      } catch (RuntimeException e) {
        // the next beat tries again
      }
    }
  }

  /**
   * One run: publishes the slices, stops the scheduler, writes the claims and pods, starts the
   * scheduler and times its binds; then removes the pods, claims and slices.
   */
  Run run(int nodes, int pods, Offering offering, String variant) throws Exception {
    int slices = publish(nodes, offering, variant);
    components.stop("kube-scheduler");
    List<Future<?>> created = new ArrayList<>();
    for (int i = 0; i < pods; i++) {
      String name = "p-" + i;
      created.add(
          pool.submit(
              () -> {
                client.resource(claim(name, offering)).create();
                client.resource(pod(name)).create();
              }));
    }
    for (Future<?> f : created) {
      f.get();
    }
    Set<String> bound = ConcurrentHashMap.newKeySet();
    var first = new AtomicLong();
    var last = new AtomicLong();
    Watcher<Pod> binds =
        new Watcher<>() {
          @Override
          public void eventReceived(Action action, Pod pod) {
            if (pod.getSpec().getNodeName() != null && bound.add(pod.getMetadata().getName())) {
              long now = System.nanoTime();
              first.compareAndSet(0, now);
              last.set(now);
            }
          }

          @Override
          public void onClose(WatcherException cause) {}
        };
    long start;
    try (var watch = client.pods().inNamespace(NAMESPACE).watch(binds)) {
      start = System.nanoTime();
      components.start("kube-scheduler");
      long lastProgress = System.nanoTime();
      int seen = 0;
      while (bound.size() < pods) {
        Thread.sleep(500);
        if (bound.size() != seen) {
          seen = bound.size();
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > Duration.ofSeconds(60).toNanos()) {
          break; // the rest is unschedulable: the table says how many were bound
        }
      }
    }
    var run =
        new Run(
            offering,
            variant,
            slices,
            pods,
            bound.size(),
            (last.get() - first.get()) / 1e9,
            (last.get() - start) / 1e9);
    cleanUp();
    return run;
  }

  /** Writes every node's slices for the offering; returns how many. */
  private int publish(int nodes, Offering offering, String variant) throws Exception {
    List<Future<Integer>> created = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      int n = i;
      created.add(
          pool.submit(
              () -> {
                Node node = client.nodes().withName(PREFIX + n).get();
                List<ResourceSlice> slices =
                    pool(
                        node.getMetadata().getName(),
                        node.getMetadata().getUid(),
                        Fleets.withOwnUuids(template, n),
                        offering);
                slices =
                    switch (variant) {
                      case "published" -> slices;
                      case "no-counters" -> WithoutCounters.of(slices);
                      case "pool-per-gpu" -> PoolPerGpu.of(slices);
                      default -> throw new IllegalArgumentException("no variant " + variant);
                    };
                slices.forEach(s -> client.resource(s).create());
                return slices.size();
              }));
    }
    int count = 0;
    for (Future<Integer> f : created) {
      count += f.get();
    }
    return count;
  }

  /** Pods (at once), then claims, then the slices of the fake nodes. */
  void cleanUp() throws Exception {
    client.pods().inNamespace(NAMESPACE).withGracePeriod(0).delete();
    awaitEmpty(() -> client.pods().inNamespace(NAMESPACE).list().getItems().size(), "pods");
    client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(NAMESPACE).delete();
    awaitEmpty(
        () ->
            client
                .dynamicResourceAllocation()
                .v1()
                .resourceClaims()
                .inNamespace(NAMESPACE)
                .list()
                .getItems()
                .size(),
        "claims");
    benchSlices().forEach(s -> pool.submit(() -> client.resource(s).delete()));
    awaitEmpty(() -> benchSlices().size(), "slices");
  }

  /** The driver's slices of the fake nodes. */
  private List<ResourceSlice> benchSlices() {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourcesSlices()
        .withField("spec.driver", D)
        .list()
        .getItems()
        .stream()
        .filter(s -> s.getSpec().getNodeName() != null)
        .filter(s -> s.getSpec().getNodeName().startsWith(PREFIX))
        .toList();
  }

  /** Everything the benchmark made: the pods, claims and slices, the nodes, the namespace. */
  void tearDown() throws Exception {
    heartbeats.shutdownNow();
    cleanUp();
    client.nodes().list().getItems().stream()
        .filter(n -> n.getMetadata().getName().startsWith(PREFIX))
        .forEach(n -> pool.submit(() -> client.resource(n).delete()));
    awaitEmpty(
        () ->
            (int)
                client.nodes().list().getItems().stream()
                    .filter(n -> n.getMetadata().getName().startsWith(PREFIX))
                    .count(),
        "nodes");
    client.leases().inNamespace("kube-node-lease").list().getItems().stream()
        .filter(l -> l.getMetadata().getName().startsWith(PREFIX))
        .forEach(l -> client.resource(l).delete());
    client.namespaces().withName(NAMESPACE).delete();
    if (createdDeviceClasses) {
      try (var in = Files.newInputStream(REPO.resolve("deploy/manifests/deviceclasses.yaml"))) {
        client.load(in).delete();
      }
    }
  }

  private interface Count {
    int now();
  }

  private static void awaitEmpty(Count count, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    int left;
    while ((left = count.now()) > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(left + " " + what + " still there after 5 minutes");
      }
      Thread.sleep(500);
    }
  }

  /** A Node kwok manages (its annotation) that no real pod lands on (its taint), written Ready. */
  private void createNode(String name) {
    var resources =
        Map.of(
            "cpu",
            new Quantity("64"),
            "memory",
            new Quantity("512Gi"),
            "pods",
            new Quantity("110"));
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(FAKE)
                .withLabels(Map.of("type", "kwok", "kubernetes.io/hostname", name))
                .endMetadata()
                .withNewSpec()
                .addNewTaint()
                .withKey("kwok.x-k8s.io/node")
                .withValue("fake")
                .withEffect("NoSchedule")
                .endTaint()
                .endSpec()
                .build())
        .create();
    // A merge patch of the status: the node lifecycle controller edits a new Node at once (a PUT
    // of what was created would conflict with it).
    String now = Instant.now().toString();
    String status =
        """
        {"status":{"capacity":%1$s,"allocatable":%1$s,
          "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
                         "lastHeartbeatTime":"%2$s","lastTransitionTime":"%2$s"}]}}
        """
            .formatted("{\"cpu\":\"64\",\"memory\":\"512Gi\",\"pods\":\"110\"}", now);
    client
        .nodes()
        .withName(name)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), status);
  }

  static String request(Offering offering) {
    return switch (offering) {
      case MIG_DYNAMIC, MIG_STATIC -> "1 × mig.tessera.dev, profile 1g.10gb";
      case SHARED -> "1 × shared.tessera.dev, 10Gi";
      default -> "1 × gpu.tessera.dev";
    };
  }

  /** One device of the offering's kind: a GPU, a 1g.10gb placement, or 10Gi of a shared GPU. */
  static ResourceClaim claim(String name, Offering offering) {
    var exactly = new DeviceRequestBuilder().withName("gpu").withNewExactly();
    switch (offering) {
      case MIG_DYNAMIC, MIG_STATIC ->
          exactly
              .withDeviceClassName("mig.tessera.dev")
              .addNewSelector()
              .withNewCel("device.attributes[\"" + D + "\"].profile == \"1g.10gb\"")
              .endSelector();
      case SHARED ->
          exactly
              .withDeviceClassName("shared.tessera.dev")
              .withNewCapacity()
              .withRequests(Map.of("memory", new Quantity("10Gi")))
              .endCapacity();
      default -> exactly.withDeviceClassName("gpu.tessera.dev");
    }
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .withRequests(exactly.endExactly().build())
        .endDevices()
        .endSpec()
        .build();
  }

  /** A pod for a fake node that holds its claim (its container never runs: kwok only fakes it). */
  static Pod pod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withNodeSelector(Map.of("type", "kwok"))
        .addNewToleration()
        .withKey("kwok.x-k8s.io/node")
        .withOperator("Exists")
        .withEffect("NoSchedule")
        .endToleration()
        .addNewResourceClaim()
        .withName("gpu")
        .withResourceClaimName(name)
        .endResourceClaim()
        .addNewContainer()
        .withName("main")
        .withImage("registry.k8s.io/pause:3.10.1")
        .withNewResources()
        .addNewClaim()
        .withName("gpu")
        .endClaim()
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** The slices Tessera publishes for a node with this inventory under this offering. */
  static List<ResourceSlice> pool(
      String node, String uid, NodeInventory inventory, Offering offering) {
    return new PoolSlices(D).slices(node, uid, 1, new SliceRenderer().render(inventory, offering));
  }

  /** The template node: 8 simulated H100s, discovered through the real NVML binding. */
  static NodeInventory inventory(Path work) throws Exception {
    Path root = SimulatedNode.layOut(work.resolve("driver-root"), "H100-SXM5-80GB", 8);
    try (var nvml = JnaNvml.open(root)) {
      return GpuDiscovery.onNode(nvml, root).discover();
    }
  }
}
