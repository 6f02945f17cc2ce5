package dev.tessera.controller.publish;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.NodeInventory;
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
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
  private final JsonMapper json;
  private final Clock clock;
  private final Set<String> queue = new LinkedHashSet<>();
  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("node-pools").unstarted(r));
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private SharedIndexInformer<GenericKubernetesResource> gpuNodes;
  private SharedIndexInformer<Node> nodes;
  private SharedIndexInformer<Lease> leases;
  private SharedIndexInformer<ResourceSlice> slices;

  public NodePoolController(
      KubernetesClient client,
      ControllerConfig config,
      SliceRenderer renderer,
      PoolReconciler reconciler,
      JsonMapper json,
      Clock clock) {
    this.client = client;
    this.config = config;
    this.renderer = renderer;
    this.reconciler = reconciler;
    this.json = json;
    this.clock = clock;
  }

  /** Starts watching and publishing; called once this replica leads. */
  public void start() {
    gpuNodes =
        inform(
            client.genericKubernetesResources(GPU_NODES).inform(), o -> o.getMetadata().getName());
    nodes = inform(client.nodes().inform(), o -> o.getMetadata().getName());
    leases =
        inform(
            client.leases().inNamespace(config.leaseNamespace()).inform(),
            o ->
                o.getMetadata().getName().startsWith("tessera-")
                    ? o.getMetadata().getName().substring(8)
                    : null);
    slices =
        inform(
            slimSliceInformer(),
            o ->
                config.driverName().equals(o.getSpec().getDriver())
                    ? o.getSpec().getPool().getName()
                    : null);
    long period = config.resync().toMillis();
    worker.scheduleWithFixedDelay(this::resyncAll, period, period, TimeUnit.MILLISECONDS);
    LOG.atInfo().addKeyValue("driver", config.driverName()).log("publishing the GPU nodes' slices");
  }

  /**
   * Only Tessera's slices, and of each only what reconciling needs (name, owners, the content
   * digest, driver and pool): a node's full slices are ~1.6 MiB of model objects in {@code
   * mig-dynamic}, too much to hold for a fleet.
   */
  private SharedIndexInformer<ResourceSlice> slimSliceInformer() {
    SharedIndexInformer<ResourceSlice> informer =
        client
            .dynamicResourceAllocation()
            .v1()
            .resourcesSlices()
            .withField("spec.driver", config.driverName())
            .runnableInformer(0);
    informer.itemStore(
        new ReducedStateItemStore<>(
            ReducedStateItemStore.NAME_KEY_STATE,
            ResourceSlice.class,
            client.getKubernetesSerialization(),
            "metadata.annotations",
            "metadata.ownerReferences",
            "spec.driver",
            "spec.nodeName",
            "spec.pool"));
    informer.start().toCompletableFuture().join();
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

  private void enqueue(String node) {
    if (node == null) {
      return;
    }
    synchronized (queue) {
      if (queue.add(node)) {
        worker.execute(this::drain);
      }
    }
  }

  private void resyncAll() {
    var all = new LinkedHashSet<String>();
    gpuNodes.getStore().list().forEach(g -> all.add(g.getMetadata().getName()));
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
    try {
      reconcile(node);
    } catch (RuntimeException e) {
      LOG.atWarn()
          .addKeyValue("node", node)
          .setCause(e)
          .log("cannot reconcile the node's slices; retrying");
      worker.schedule(() -> enqueue(node), 5, TimeUnit.SECONDS);
    }
  }

  private void reconcile(String nodeName) {
    GenericKubernetesResource gpuNode = gpuNodes.getStore().getByKey(nodeName);
    Node node = nodes.getStore().getByKey(nodeName);
    Lease lease = leases.getStore().getByKey(config.leaseNamespace() + "/tessera-" + nodeName);
    boolean alive = LeaseLiveness.alive(lease, clock.instant(), config.leaseGrace());
    List<ResourceSlice> existing =
        slices.getStore().list().stream()
            .filter(s -> config.driverName().equals(s.getSpec().getDriver()))
            .filter(s -> nodeName.equals(s.getSpec().getPool().getName()))
            .toList();
    NodeInventory inventory = gpuNode == null ? null : inventory(gpuNode);
    List<DesiredSlice> desired =
        inventory != null && node != null && alive
            ? renderer.render(inventory, offering(node), health(gpuNode))
            : List.of();
    String uid = node == null ? "" : node.getMetadata().getUid();
    List<SliceWrite> writes = reconciler.reconcile(nodeName, uid, desired, existing);
    var api = client.dynamicResourceAllocation().v1().resourcesSlices();
    for (SliceWrite write : writes) {
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

  /** The device health the node plugin reported; all healthy when it has reported none. */
  @SuppressWarnings("unchecked")
  private NodeHealth health(GenericKubernetesResource gpuNode) {
    var status = (Map<String, Object>) gpuNode.getAdditionalProperties().get("status");
    if (status == null || status.get("health") == null) {
      return NodeHealth.ALL_HEALTHY;
    }
    return json.convertValue(status.get("health"), NodeHealth.class);
  }

  /** The inventory the node plugin reported, or null while it has reported none. */
  @SuppressWarnings("unchecked")
  private NodeInventory inventory(GenericKubernetesResource gpuNode) {
    var status = (Map<String, Object>) gpuNode.getAdditionalProperties().get("status");
    if (status == null || status.get("inventory") == null) {
      return null;
    }
    return json.convertValue(status.get("inventory"), NodeInventory.class);
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
