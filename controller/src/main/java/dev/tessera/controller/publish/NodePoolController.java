package dev.tessera.controller.publish;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.controller.config.ControllerConfig;
import dev.tessera.controller.render.DesiredSlice;
import dev.tessera.controller.render.Offering;
import dev.tessera.controller.render.SliceRenderer;
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
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps every GPU node's pool true: watches GpuNodes, Nodes, the plugins' Leases and our
 * ResourceSlices; for each node touched (and every node on each resync) renders what its pool
 * should hold — nothing when the GpuNode, the Node or a live Lease is missing — and writes only the
 * difference ({@link PoolReconciler}). One worker: the writes of one node never race.
 */
@Singleton
public class NodePoolController {
  private static final Logger LOG = LoggerFactory.getLogger(NodePoolController.class);
  private static final ResourceDefinitionContext GPU_NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup(GpuNodeNames.GROUP)
          .withVersion(GpuNodeNames.VERSION)
          .withKind(GpuNodeNames.KIND)
          .withPlural(GpuNodeNames.PLURAL)
          .withNamespaced(false)
          .build();

  private final KubernetesClient client;
  private final ControllerConfig config;
  private final SliceRenderer renderer;
  private final PoolReconciler reconciler;

  /**
   * Informers list in pages: a fleet's GpuNodes or slices in one response would be the controller's
   * memory peak (the whole list parsed at once).
   */
  private static final long LIST_PAGE = 100;

  private final ReportedNodes reported;
  private final MeterRegistry metrics;
  private final Clock clock;
  private final Set<String> queue = new LinkedHashSet<>();
  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("node-pools").unstarted(r));
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private SharedIndexInformer<GenericKubernetesResource> gpuNodes;
  private SharedIndexInformer<Node> nodes;
  private SharedIndexInformer<Lease> leases;
  private boolean synced; // guarded by queue
  private SharedIndexInformer<ResourceSlice> slices;

  public NodePoolController(
      KubernetesClient client,
      ControllerConfig config,
      SliceRenderer renderer,
      PoolReconciler reconciler,
      JsonMapper json,
      Clock clock,
      MeterRegistry metrics) {
    this.client = client;
    this.metrics = metrics;
    this.config = config;
    this.renderer = renderer;
    this.reconciler = reconciler;
    this.reported = new ReportedNodes(json);
    this.clock = clock;
    Gauge.builder("tessera.controller.reported.nodes", () -> reported.nodes().size())
        .description("Nodes whose plugin reported an inventory in its GpuNode")
        .register(metrics);
    Gauge.builder("tessera.controller.unhealthy.devices", reported::unhealthyDevices)
        .description("Devices the node plugins report unhealthy (tainted NoSchedule)")
        .register(metrics);
  }

  /** Starts watching and publishing; called once this replica leads. */
  public void start() {
    // GpuNodes: parsed into records as they change; the store keeps names only.
    gpuNodes =
        slim(
            client.genericKubernetesResources(GPU_NODES).withLimit(LIST_PAGE).runnableInformer(0),
            GenericKubernetesResource.class,
            "metadata.uid");
    gpuNodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(GenericKubernetesResource obj) {
            reported.update(obj);
          }

          @Override
          public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
            reported.update(after);
          }

          @Override
          public void onDelete(GenericKubernetesResource obj, boolean unknownFinalState) {
            reported.remove(obj.getMetadata().getName());
          }
        });
    inform(gpuNodes, o -> o.getMetadata().getName());
    // Nodes: only the offering label and the UID (a real Node's status is large).
    nodes =
        slim(
            client.nodes().withLimit(LIST_PAGE).runnableInformer(0),
            Node.class,
            "metadata.labels",
            "metadata.uid");
    inform(nodes, o -> o.getMetadata().getName());
    leases =
        inform(
            client.leases().inNamespace(config.leaseNamespace()).runnableInformer(0),
            o ->
                o.getMetadata().getName().startsWith("tessera-")
                    ? o.getMetadata().getName().substring(8)
                    : null);
    // Only Tessera's slices, and of each only what reconciling needs: a node's full slices are
    // ~1 MiB of model objects in mig-dynamic, too much to hold for a fleet.
    slices =
        slim(
            client
                .dynamicResourceAllocation()
                .v1()
                .resourcesSlices()
                .withField("spec.driver", config.driverName())
                .withLimit(LIST_PAGE)
                .runnableInformer(0),
            ResourceSlice.class,
            "metadata.annotations",
            "metadata.ownerReferences",
            "spec.driver",
            "spec.nodeName",
            "spec.pool");
    inform(
        slices,
        o ->
            config.driverName().equals(o.getSpec().getDriver())
                ? o.getSpec().getPool().getName()
                : null);
    // Reconciling reads every store: none runs before all four have synced (events that came
    // meanwhile wait in the queue).
    informers.forEach(i -> i.start().toCompletableFuture().join());
    synchronized (queue) {
      synced = true;
      queue.forEach(node -> worker.execute(this::drain));
    }
    long period = config.resync().toMillis();
    worker.scheduleWithFixedDelay(this::resyncAll, period, period, TimeUnit.MILLISECONDS);
    LOG.atInfo().addKeyValue("driver", config.driverName()).log("publishing the GPU nodes' slices");
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

  private <T extends HasMetadata> SharedIndexInformer<T> inform(
      SharedIndexInformer<T> informer, Function<T, String> nodeOf) {
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(T obj) {
            enqueue(nodeOf.apply(obj));
          }

          @Override
          public void onUpdate(T before, T after) {
            enqueue(nodeOf.apply(after));
          }

          @Override
          public void onDelete(T obj, boolean unknownFinalState) {
            enqueue(nodeOf.apply(obj));
          }
        });
    informers.add(informer);
    return informer;
  }

  private Timer reconcileTimer(String outcome) {
    return Timer.builder("tessera.controller.reconcile")
        .description("Reconciling one node's pool: render, diff and the API writes")
        .tag("outcome", outcome)
        .register(metrics);
  }

  private void enqueue(String node) {
    if (node == null) {
      return;
    }
    synchronized (queue) {
      if (queue.add(node) && synced) {
        worker.execute(this::drain);
      }
    }
  }

  private void resyncAll() {
    var all = new LinkedHashSet<String>();
    all.addAll(reported.nodes());
    slices.getStore().list().stream()
        .filter(s -> config.driverName().equals(s.getSpec().getDriver()))
        .forEach(s -> all.add(s.getSpec().getPool().getName()));
    all.forEach(this::enqueue);
  }

  private void drain() {
    String node;
    synchronized (queue) {
      if (queue.isEmpty()) {
        return;
      }
      node = queue.iterator().next();
      queue.remove(node);
    }
    Timer.Sample sample = Timer.start(metrics);
    try {
      reconcile(node);
      sample.stop(reconcileTimer("success"));
    } catch (RuntimeException e) {
      sample.stop(reconcileTimer("error"));
      LOG.atWarn()
          .addKeyValue("node", node)
          .setCause(e)
          .log("cannot reconcile the node's slices; retrying");
      worker.schedule(() -> enqueue(node), 5, TimeUnit.SECONDS);
    }
  }

  private void reconcile(String nodeName) {
    var report = reported.of(nodeName);
    Node node = nodes.getStore().getByKey(nodeName);
    Lease lease = leases.getStore().getByKey(config.leaseNamespace() + "/tessera-" + nodeName);
    boolean alive = LeaseLiveness.alive(lease, clock.instant(), config.leaseGrace());
    List<ResourceSlice> existing =
        slices.getStore().list().stream()
            .filter(s -> config.driverName().equals(s.getSpec().getDriver()))
            .filter(s -> nodeName.equals(s.getSpec().getPool().getName()))
            .toList();
    List<DesiredSlice> desired =
        report.isPresent() && node != null && alive
            ? renderer.render(report.get().inventory(), offering(node), report.get().health())
            : List.of();
    String uid = node == null ? "" : node.getMetadata().getUid();
    List<SliceWrite> writes = reconciler.reconcile(nodeName, uid, desired, existing);
    var api = client.dynamicResourceAllocation().v1().resourcesSlices();
    for (SliceWrite write : writes) {
      metrics
          .counter(
              "tessera.controller.slice.writes",
              "operation",
              switch (write) {
                case SliceWrite.Create c -> "create";
                case SliceWrite.Update u -> "update";
                case SliceWrite.Delete d -> "delete";
              })
          .increment();
      switch (write) {
        case SliceWrite.Create c -> api.resource(c.slice()).create();
        case SliceWrite.Update u -> api.resource(u.slice()).forceConflicts().serverSideApply();
        case SliceWrite.Delete d -> api.withName(d.name()).delete();
      }
    }
    if (!writes.isEmpty()) {
      LOG.atInfo()
          .addKeyValue("node", nodeName)
          .addKeyValue("writes", writes.size())
          .addKeyValue("slices", desired.size())
          .addKeyValue("pluginAlive", alive)
          .log("published the node's slices");
    }
  }

  private Offering offering(Node node) {
    String label =
        node.getMetadata().getLabels() == null
            ? null
            : node.getMetadata().getLabels().get(Offering.NODE_LABEL);
    return Offering.fromLabel(label == null ? config.defaultOffering() : label)
        .orElseGet(
            () -> {
              LOG.atWarn()
                  .addKeyValue("node", node.getMetadata().getName())
                  .addKeyValue("offering", label)
                  .log("unknown offering; using the default");
              return Offering.fromLabel(config.defaultOffering()).orElse(Offering.EXCLUSIVE);
            });
  }

  @PreDestroy
  void stop() {
    worker.shutdownNow();
    informers.forEach(SharedIndexInformer::stop);
  }
}
