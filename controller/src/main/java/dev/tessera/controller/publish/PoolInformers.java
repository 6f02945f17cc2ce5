package dev.tessera.controller.publish;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.NodeLeaseNames;
import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's view of the cluster: informers on GpuNodes, Nodes, the plugins' Leases and
 * Tessera's ResourceSlices, each store slimmed to what reconciling reads. It names the node every
 * event is about, and reads one node's {@link NodeInputs} from the caches.
 */
final class PoolInformers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PoolInformers.class);

  /** How the generic client addresses GpuNodes (no typed model for our CRD). */
  static final ResourceDefinitionContext GPU_NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup(GpuNodeNames.GROUP)
          .withVersion(GpuNodeNames.VERSION)
          .withKind(GpuNodeNames.KIND)
          .withPlural(GpuNodeNames.PLURAL)
          .withNamespaced(false)
          .build();

  /**
   * Informers list in pages: a fleet's GpuNodes or slices in one response would be the controller's
   * memory peak (the whole list parsed at once).
   */
  private static final long LIST_PAGE = 100;

  /** The slices' index by pool (a pool is a node): a reconcile reads one pool, not every slice. */
  private static final String BY_POOL = "pool";

  private final KubernetesClient client;
  private final PublishSettings config;
  private final ReportedNodes reported;
  private final Clock clock;
  private final LeaseSight leaseSight;
  private final MetadataInformers metadataInformers;
  private final SliceGenerations generations;
  private final Counter settledRenewals;
  private final Counter unchangedNodes;

  /** By what each lists, in the order they were built; the start log names them. */
  private final Map<String, SharedIndexInformer<?>> informers =
      Collections.synchronizedMap(new LinkedHashMap<>());

  /** Their lists under way: the first ones, and those after a watch ended on an expired version. */
  private final ListsUnderWay lists;

  /**
   * Informers that stopped on their own, and why: fabric8 stops one for good on a watch failure it
   * does not retry (an event it cannot read, for one), and its cache no longer changes.
   */
  private final Map<String, Throwable> stoppedOnTheirOwn = new ConcurrentHashMap<>();

  /** What {@link #start} was given: a Lease informer made again names nodes as the first did. */
  private Consumer<String> touched;

  private Predicate<String> settledAlive;

  private SharedIndexInformer<Node> nodes;

  /** Replaced by a relist of the Leases ({@link #relistLeases}), with its name. */
  private volatile SharedIndexInformer<Lease> leases;

  private volatile String leasesName = "leases";
  private final AtomicInteger relistsBegun = new AtomicInteger();

  private SharedIndexInformer<ResourceSlice> slices;

  /** Reads a cached expiry again from the API server before a node's slices go. */
  private final LeaseExpiryCheck expiryCheck;

  /** Whether the Leases are being listed again (one such list at a time). */
  private final AtomicBoolean relistingLeases = new AtomicBoolean();

  private final Counter leaseRelists;
  private volatile boolean closed;

  PoolInformers(
      KubernetesClient client,
      PublishSettings config,
      ReportedNodes reported,
      Clock clock,
      MeterRegistry metrics,
      MetadataClient metadata) {
    this.client = client;
    this.config = config;
    this.reported = reported;
    this.clock = clock;
    this.leaseSight = new LeaseSight(clock);
    this.lists = new ListsUnderWay(clock);
    this.metadataInformers = new MetadataInformers(metadata);
    this.generations =
        new SliceGenerations(
            name -> client.dynamicResourceAllocation().v1().resourcesSlices().withName(name).get(),
            Counter.builder("tessera.controller.slice.generation.reads")
                .description(
                    "Slices read whole because their cached metadata does not say their pool"
                        + " generation (written before the controller annotated it)")
                .register(metrics));
    this.settledRenewals =
        Counter.builder("tessera.controller.lease.renewals.settled")
            .description(
                "Plugin Lease renewals that named no node: its pool was settled with the plugin"
                    + " alive, and the renewal keeps it alive")
            .register(metrics);
    this.expiryCheck =
        new LeaseExpiryCheck(
            node ->
                client
                    .leases()
                    .inNamespace(config.leaseNamespace())
                    .withName(NodeLeaseNames.forNode(node))
                    .get(),
            this::relistLeases,
            Counter.builder("tessera.controller.lease.expiries.contradicted")
                .description(
                    "Plugin Lease expiries in the controller's cache that the API server's Lease"
                        + " contradicted (the Leases' watch was behind or silent): the node kept its"
                        + " slices")
                .register(metrics));
    this.leaseRelists =
        Counter.builder("tessera.controller.lease.relists")
            .description(
                "Times the plugins' Leases were listed again because their cache was behind")
            .register(metrics);
    this.unchangedNodes =
        Counter.builder("tessera.controller.node.updates.unchanged")
            .description(
                "Node updates that named no node: the Node's UID and offering label are as they"
                    + " were (a kubelet's status update)")
            .register(metrics);
  }

  /**
   * Starts the informers, naming to {@code touched} the node of every event but the Lease renewals
   * {@code settledAlive} says change nothing; returns once all have synced.
   *
   * <p>Why a renewal may be passed over: the Lease decides one input of a node's plan, whether its
   * plugin is alive. A renewal leaves the plugin alive; if the node's last reconcile wrote nothing
   * and saw it alive too ({@code settledAlive}), its reconcile now would find every input as it was
   * (any other change names the node through its own event) and do nothing. Every plugin renews
   * every 10 s: at 5,000 nodes, 500 reconciles a second that cannot write (docs/benchmarks.md). An
   * expiry makes no event either way; the resync finds it, as before.
   */
  void start(Consumer<String> touched, Predicate<String> settledAlive) {
    // GpuNodes: parsed into records as they change; the store keeps names only.
    var gpuNodes =
        slim(
            client.genericKubernetesResources(GPU_NODES).withLimit(LIST_PAGE).runnableInformer(0),
            GenericKubernetesResource.class,
            "metadata.uid");
    // Named only when what decides the pool changed: the controller's own status.offering write
    // comes back here too (ReportedNodes.update).
    gpuNodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(GenericKubernetesResource obj) {
            reported.update(obj);
            touched.accept(obj.getMetadata().getName());
          }

          @Override
          public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
            if (reported.update(after)) {
              touched.accept(after.getMetadata().getName());
            }
          }

          @Override
          public void onDelete(GenericKubernetesResource obj, boolean unknownFinalState) {
            reported.remove(obj.getMetadata().getName());
            touched.accept(obj.getMetadata().getName());
          }
        });
    informers.put("gpunodes", gpuNodes);
    // Nodes: their metadata only, of which the store keeps the offering label and the UID (a
    // kubelet's Node carries a large status, which the API server then neither serializes nor
    // sends). An update that changed neither names no node: the kubelet updates its Node's status
    // every few minutes on every node, and a reconcile would find the same inputs.
    nodes =
        inform(
            "nodes",
            slim(metadataInformers.nodes(LIST_PAGE), Node.class, "metadata.labels", "metadata.uid"),
            o -> o.getMetadata().getName(),
            touched,
            (node, before, after) -> {
              if (samePlanInputs(before, after)) {
                unchangedNodes.increment();
                return true;
              }
              return false;
            });
    this.touched = touched;
    this.settledAlive = settledAlive;
    leases = leaseInformer(leasesName, false);
    // Only Tessera's slices, their metadata only (a node's full slices are ~1 MiB of model objects
    // in mig-dynamic, too much to hold for a fleet or to parse again for every slice written), and
    // of that only what reconciling reads. A whole slice (fabric8's mock API server sends them)
    // keeps its pool.
    slices =
        slim(
            metadataInformers.slicesOf(config.driverName(), LIST_PAGE),
            ResourceSlice.class,
            "metadata.annotations",
            "metadata.ownerReferences",
            "spec.driver",
            "spec.pool");
    slices.addIndexers(Map.of(BY_POOL, s -> poolIndex(SlicePool.name(s))));
    slices.addEventHandler(generations.forgetting());
    inform("resourceslices", slices, this::ownPoolOf, touched);
    informersNow().forEach(e -> followLists(e.getKey(), e.getValue()));
    // Reconciling reads every store: the caller runs nothing before all four have synced. One list
    // after another: at 5,000 nodes the GpuNodes' list is most of the start; listing the four at
    // once took 1.3 s off it in one run, and 44 MiB onto the RSS (docs/benchmarks.md).
    informersNow().forEach(e -> list(e.getKey(), e.getValue()));
    leaseSight.restarted();
  }

  /**
   * An informer on the plugins' Leases, as {@code name}; {@code fromStorage}: its first list is
   * read in pages, and so not from the API server's watch cache (fabric8 asks an unpaged first list
   * at resource version 0, which the watch cache answers, stale when it has stalled).
   */
  private SharedIndexInformer<Lease> leaseInformer(String name, boolean fromStorage) {
    var inNamespace = client.leases().inNamespace(config.leaseNamespace());
    return inform(
        name,
        fromStorage
            ? inNamespace.withLimit(LIST_PAGE).runnableInformer(0)
            : inNamespace.runnableInformer(0),
        o -> NodeLeaseNames.nodeOf(o.getMetadata().getName()),
        touched,
        (node, before, lease) -> {
          if (settledAlive.test(node) && alive(lease)) {
            settledRenewals.increment();
            return true;
          }
          return false;
        });
  }

  /**
   * Lists the plugins' Leases again, on a thread of its own, with a new informer whose list the API
   * server answers from storage: the one whose cache fell behind is read until the new one has
   * synced, then stopped. The renew times listed are the API server's own, so no expiry is pushed
   * back. Returns whether this call began one (none while one is under way).
   */
  private boolean relistLeases() {
    if (closed || !relistingLeases.compareAndSet(false, true)) {
      return false;
    }
    String name = "leases (relist " + relistsBegun.incrementAndGet() + ")";
    Thread.ofPlatform()
        .daemon()
        .name("lease-relist")
        .start(
            () -> {
              SharedIndexInformer<Lease> fresh = null;
              try {
                fresh = leaseInformer(name, true);
                // Its first list is followed by the list timeout; a failed one is logged below,
                // not taken for a cache that stopped (the one behind still serves): it is followed
                // as the others only once it has synced.
                list(name, fresh);
                followLists(name, fresh);
                SharedIndexInformer<Lease> behind = leases;
                String behindName = leasesName;
                leases = fresh;
                leasesName = name;
                informers.remove(behindName);
                behind.stop();
                lists.ended(behindName); // a list it had under way ends with it
                leaseRelists.increment();
                if (closed) {
                  fresh.stop();
                }
              } catch (RuntimeException e) {
                if (!closed) {
                  LOG.atWarn().setCause(e).log("cannot list the plugins' Leases again");
                }
                if (fresh != null && leases != fresh) {
                  fresh.stop();
                  informers.remove(name);
                }
              } finally {
                relistingLeases.set(false);
              }
            });
    return true;
  }

  /**
   * The informers as they are now, in the order they were built: a list waits on none but its own
   * (a close while the first lists hang must stop them), and a relist replaces the Leases'.
   */
  private List<Map.Entry<String, SharedIndexInformer<?>>> informersNow() {
    synchronized (informers) {
      return List.copyOf(informers.entrySet());
    }
  }

  /** Keeps what lists {@code informer} has under way, and whether it stopped on its own. */
  private void followLists(String what, SharedIndexInformer<?> informer) {
    informer.addEventHandler(lists.of(what));
    informer
        .stopped()
        .whenComplete(
            (done, failure) -> {
              // Our own stop completes it normally.
              if (failure != null) {
                stoppedOnTheirOwn.putIfAbsent(what, failure);
              }
            });
  }

  /** Starts {@code informer}, waits until it has synced, and logs what it listed and how long. */
  private void list(String what, SharedIndexInformer<?> informer) {
    Instant begun = clock.instant();
    // Counted from here, not from when the informer's event thread tells the handler.
    ListUnderWay first = lists.begun(what);
    try {
      informer.start().toCompletableFuture().join();
    } finally {
      lists.ended(first);
    }
    LOG.atInfo()
        .addKeyValue("resource", what)
        .addKeyValue("objects", informer.getStore().listKeys().size())
        .addKeyValue("tookMs", Duration.between(begun, clock.instant()).toMillis())
        .log("listed");
  }

  /**
   * The list under way that was asked for first, if one is: one of the first lists ({@link #start}
   * runs them one after another), or a list after a watch ended, while the cache it fills is not
   * watched.
   */
  Optional<ListUnderWay> listing() {
    return lists.oldest();
  }

  /** An informer that stopped on its own, if one has, and why: its cache no longer changes. */
  Optional<StoppedInformer> stoppedOnItsOwn() {
    return stoppedOnTheirOwn.entrySet().stream()
        .findFirst()
        .map(e -> new StoppedInformer(e.getKey(), e.getValue()));
  }

  /**
   * An informer that fabric8 stopped for good.
   *
   * @param resource what it lists, as the start log names it
   * @param cause the failure it stopped on
   */
  record StoppedInformer(String resource, Throwable cause) {}

  /** Whether the plugin that holds {@code lease} is alive now, as a reconcile would judge it. */
  private boolean alive(Lease lease) {
    return LeaseLiveness.alive(lease, clock.instant(), config.leaseGrace(), leaseSight.since());
  }

  /**
   * Notes whether the Lease informer watches now; called every second or so, and before each
   * reconcile (see {@link LeaseLiveness} for why a gap in sight matters).
   */
  void checkLeaseSight() {
    boolean watching;
    try {
      watching = leases.isWatching();
    } catch (RuntimeException e) {
      // fabric8's isWatching reads the watch its stop clears: the informer a relist has just
      // replaced. Its successor is seen at the next look.
      return;
    }
    switch (leaseSight.observe(watching)) {
      case LOST ->
          LOG.atWarn()
              .log(
                  "lost sight of the plugins' Leases (their watch is down); no plugin is judged"
                      + " gone on a Lease while it cannot be seen");
      case REGAINED ->
          LOG.atInfo()
              .addKeyValue("since", leaseSight.since())
              .log(
                  "sees the plugins' Leases again; a Lease's expiry counts from no earlier than now");
      case NONE -> {}
    }
  }

  /**
   * One node's inputs as the caches hold them now; a cached slice that does not say its generation
   * is read from the API server ({@link SliceGenerations}), so this runs on a worker, not on an
   * informer's thread.
   */
  NodeInputs inputs(String nodeName) {
    checkLeaseSight();
    Node node = nodes.getStore().getByKey(nodeName);
    Lease lease =
        leases
            .getStore()
            .getByKey(config.leaseNamespace() + "/" + NodeLeaseNames.forNode(nodeName));
    List<ResourceSlice> pool =
        slices.getIndexer().byIndex(BY_POOL, nodeName).stream()
            .filter(this::ours)
            .map(generations::complete)
            .filter(Objects::nonNull)
            .toList();
    // An expiry withdraws the pool's slices: the API server's Lease confirms it first.
    boolean alive =
        alive(lease)
            || (!pool.isEmpty() && expiryCheck.aliveAfterAll(nodeName, lease, this::alive));
    return new NodeInputs(
        nodeName,
        reported.of(nodeName),
        node != null,
        node == null ? "" : node.getMetadata().getUid(),
        node == null ? null : offeringOf(node),
        alive,
        pool);
  }

  /** Every node that reported or has slices of ours: what a resync reconciles. */
  Set<String> knownNodes() {
    var all = new LinkedHashSet<String>(reported.nodes());
    for (ResourceSlice slice : slices.getStore().list()) {
      String node = ownPoolOf(slice);
      if (node != null) {
        all.add(node);
      }
    }
    return all;
  }

  /**
   * A slice of the driver that names no pool (no annotation, no owner Node: not written by the
   * controller) is left alone rather than taken for a node named "".
   */
  private String ownPoolOf(ResourceSlice slice) {
    String pool = ours(slice) ? SlicePool.name(slice) : "";
    return pool.isEmpty() ? null : pool;
  }

  private static List<String> poolIndex(String pool) {
    return pool.isEmpty() ? List.of() : List.of(pool);
  }

  /**
   * The API server sends only the driver's slices (field selector), as metadata without a spec; a
   * whole slice says its driver.
   */
  private boolean ours(ResourceSlice slice) {
    return slice.getSpec() == null || config.driverName().equals(slice.getSpec().getDriver());
  }

  /** An informer whose store keeps only the named fields of each object (plus name, version). */
  private <T extends HasMetadata> SharedIndexInformer<T> slim(
      SharedIndexInformer<T> informer, Class<T> type, String... fields) {
    informer.itemStore(
        new ReducedStateItemStore<>(
            ReducedStateItemStore.NAME_KEY_STATE,
            type,
            client.getKubernetesSerialization(),
            fields));
    return informer;
  }

  /**
   * Whether a Node's update leaves what its plan reads of it as it was: the Node is the same one
   * (its UID, which its slices' owner reference names) and says the same offering.
   */
  static boolean samePlanInputs(Node before, Node after) {
    if (before == null || before.getMetadata() == null || after.getMetadata() == null) {
      return false;
    }
    return Objects.equals(before.getMetadata().getUid(), after.getMetadata().getUid())
        && Objects.equals(offeringOf(before), offeringOf(after));
  }

  private static String offeringOf(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels == null ? null : labels.get(Offering.NODE_LABEL);
  }

  private <T extends HasMetadata> SharedIndexInformer<T> inform(
      String what,
      SharedIndexInformer<T> informer,
      Function<T, String> nodeOf,
      Consumer<String> touched) {
    return inform(what, informer, nodeOf, touched, (node, before, after) -> false);
  }

  /** Which updates name no node: given the node, the object as cached before and after it. */
  @FunctionalInterface
  private interface PassOver<T> {
    boolean test(String node, T before, T after);
  }

  /** {@link #inform}, but an update for which {@code passOver} holds names no node. */
  private <T extends HasMetadata> SharedIndexInformer<T> inform(
      String what,
      SharedIndexInformer<T> informer,
      Function<T, String> nodeOf,
      Consumer<String> touched,
      PassOver<T> passOver) {
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(T obj) {
            name(nodeOf.apply(obj));
          }

          @Override
          public void onUpdate(T before, T after) {
            String node = nodeOf.apply(after);
            if (node != null && !passOver.test(node, before, after)) {
              touched.accept(node);
            }
          }

          @Override
          public void onDelete(T obj, boolean unknownFinalState) {
            name(nodeOf.apply(obj));
          }

          private void name(String node) {
            if (node != null) {
              touched.accept(node);
            }
          }
        });
    informers.put(what, informer);
    return informer;
  }

  @Override
  public void close() {
    closed = true;
    // A relist under way has its informer in the map beside the one it replaces, and stops that
    // one itself once it has taken it out.
    informersNow().forEach(e -> e.getValue().stop());
  }
}
