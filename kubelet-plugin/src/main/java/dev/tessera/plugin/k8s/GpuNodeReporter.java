package dev.tessera.plugin.k8s;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.NodeInventory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes the node's inventory into the status of its {@code GpuNode} (cluster-scoped, named after
 * the node, owned by the Node so it goes with it), creating the object when it is missing. The
 * controller renders the node's ResourceSlices from this status, and taints the devices its {@code
 * health} says are unhealthy. Inventory and health are always written together (the status is
 * replaced whole), from the latest of each.
 */
public final class GpuNodeReporter implements AutoCloseable {
  private static final long HEALTH_RETRY_SECONDS = 2;

  private static final Logger LOG = LoggerFactory.getLogger(GpuNodeReporter.class);

  /** How the generic client addresses GpuNodes (there is no typed model for our CRD). */
  public static final ResourceDefinitionContext GPU_NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup(GpuNodeNames.GROUP)
          .withVersion(GpuNodeNames.VERSION)
          .withKind(GpuNodeNames.KIND)
          .withPlural(GpuNodeNames.PLURAL)
          .withNamespaced(false)
          .build();

  private final Supplier<KubernetesClient> client;
  private final String nodeName;
  private final JsonMapper json;
  private final Clock clock;
  private final ExecutorService healthWriter =
      Executors.newSingleThreadExecutor(
          Thread.ofVirtual().name("tessera-gpunode-health").factory());
  private final AtomicBoolean healthWritePending = new AtomicBoolean();
  private volatile boolean closed;
  private NodeInventory inventory; // guarded by this
  private NodeHealth health = NodeHealth.ALL_HEALTHY; // guarded by this

  public GpuNodeReporter(
      Supplier<KubernetesClient> client, String nodeName, JsonMapper json, Clock clock) {
    this.client = client;
    this.nodeName = nodeName;
    this.json = json;
    this.clock = clock;
  }

  /** Writes the inventory (with the latest health); throws when the API server refuses. */
  public synchronized void report(NodeInventory inventory) {
    this.inventory = inventory;
    write();
  }

  /**
   * Takes the node's new health and writes it soon, off the caller's thread; later changes that
   * arrive before the write coalesce into it. Failed writes are retried.
   */
  public void reportHealth(NodeHealth health) {
    synchronized (this) {
      this.health = health;
    }
    if (!closed && healthWritePending.compareAndSet(false, true)) {
      healthWriter.execute(this::writeHealth);
    }
  }

  private void writeHealth() {
    healthWritePending.set(false);
    synchronized (this) {
      if (inventory == null || closed) {
        return; // the first inventory report carries it
      }
      try {
        write();
      } catch (RuntimeException e) {
        LOG.atWarn().setCause(e).log("cannot write device health to the GpuNode; retrying");
        CompletableFuture.delayedExecutor(HEALTH_RETRY_SECONDS, TimeUnit.SECONDS)
            .execute(() -> reportHealth(currentHealth()));
      }
    }
  }

  private synchronized NodeHealth currentHealth() {
    return health;
  }

  private void write() {
    var gpuNodes = client.get().genericKubernetesResources(GPU_NODES);
    GenericKubernetesResource gpuNode = gpuNodes.withName(nodeName).get();
    if (gpuNode == null) {
      gpuNode = gpuNodes.resource(newGpuNode()).create();
      LOG.atInfo().addKeyValue("node", nodeName).log("created GpuNode");
    }
    gpuNode.setAdditionalProperty("status", status());
    gpuNodes.resource(gpuNode).updateStatus();
    LOG.atInfo()
        .addKeyValue("node", nodeName)
        .addKeyValue("gpus", inventory.gpus().size())
        .addKeyValue("unhealthyDevices", health.unhealthyCount())
        .log("reported the inventory and device health in GpuNode status");
  }

  private GenericKubernetesResource newGpuNode() {
    var builder =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(GpuNodeNames.API_VERSION)
            .withKind(GpuNodeNames.KIND)
            .withNewMetadata()
            .withName(nodeName)
            .endMetadata();
    Node node = client.get().nodes().withName(nodeName).get();
    if (node != null) {
      builder
          .editMetadata()
          .withOwnerReferences(
              new OwnerReferenceBuilder()
                  .withApiVersion("v1")
                  .withKind("Node")
                  .withName(nodeName)
                  .withUid(node.getMetadata().getUid())
                  .build())
          .endMetadata();
    } else {
      LOG.atWarn().addKeyValue("node", nodeName).log("no Node object; the GpuNode has no owner");
    }
    var gpuNode = builder.build();
    gpuNode.setAdditionalProperty("spec", Map.of("nodeName", nodeName));
    return gpuNode;
  }

  private Map<String, Object> status() {
    var status = new LinkedHashMap<String, Object>();
    status.put("gpuCount", inventory.gpus().size());
    var products = inventory.gpus().stream().map(Gpu::productName).distinct().toList();
    status.put(
        "product", products.size() == 1 ? products.get(0) : products.isEmpty() ? "" : "mixed");
    status.put("observedTime", Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString());
    status.put("inventory", json.convertValue(inventory, Map.class));
    status.put("unhealthyDevices", health.unhealthyCount());
    status.put("health", json.convertValue(health, Map.class));
    return status;
  }

  @Override
  public void close() {
    closed = true;
    healthWriter.shutdownNow();
  }
}
