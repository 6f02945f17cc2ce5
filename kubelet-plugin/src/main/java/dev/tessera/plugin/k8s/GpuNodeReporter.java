package dev.tessera.plugin.k8s;

import dev.tessera.api.GpuNodeNames;
import dev.tessera.api.health.NodeHealth;
import dev.tessera.api.inventory.Gpu;
import dev.tessera.api.inventory.InventoryStatus;
import dev.tessera.api.inventory.NodeInventory;
import dev.tessera.plugin.claim.PreparedClaims;
import dev.tessera.plugin.prepare.ClaimHolders;
import dev.tessera.plugin.status.NodeUsage;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes the plugin's part of its {@code GpuNode}'s status (cluster-scoped, named after the node,
 * owned by the Node so it goes with it), creating the object when it is missing: the inventory, the
 * device health, and who holds which device ({@link NodeUsage}: holders, free and total GPUs,
 * shared memory left). The controller renders the node's ResourceSlices from this status, and
 * taints the devices its {@code health} says are unhealthy. The plugin's fields are always written
 * together, from the latest of each, as a merge patch of the status that names only them: {@code
 * status.offering} is the controller's and stays as it wrote it (docs/decisions.md). A write that
 * would change nothing is not made.
 */
public final class GpuNodeReporter implements AutoCloseable, ClaimHolders {
  private static final long HEALTH_RETRY_SECONDS = 2;

  /**
   * How long a change waits for the next before its status is written: changes within it make one
   * write. A write follows every prepare and unprepare; written as soon as the last returned, their
   * number grew with the API server's speed (5,622 writes for 6,000 changes in hack/bench once the
   * inventory was a quarter of its size, against 279 before; docs/benchmarks.md, decision 56). As
   * the claims' status writer holds each claim's (decision 1).
   */
  private static final long WRITE_HOLD_MILLIS = 100;

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
  private final Supplier<PreparedClaims> claims;
  private final ExecutorService healthWriter =
      Executors.newSingleThreadExecutor(
          Thread.ofVirtual().name("tessera-gpunode-health").factory());
  private final AtomicBoolean healthWritePending = new AtomicBoolean();
  private volatile boolean closed;
  private NodeInventory inventory; // guarded by this

  /**
   * {@link #inventory} as its status field: made when the inventory changes, not at each write (a
   * write follows every prepare and unprepare; the inventory changes with MIG devices at most).
   */
  private Map<String, Object> inventoryStatus; // guarded by this

  private NodeHealth health = NodeHealth.ALL_HEALTHY; // guarded by this

  /** Not guarded by this: a prepare records its pods without waiting behind a write. */
  private final Map<String, List<String>> pods = new ConcurrentHashMap<>();

  private String observedTime; // guarded by this
  private Map<String, Object> written; // guarded by this: the status last written

  /**
   * @param claims the node's claims as they are now (who holds the devices)
   */
  public GpuNodeReporter(
      Supplier<KubernetesClient> client,
      String nodeName,
      JsonMapper json,
      Clock clock,
      Supplier<PreparedClaims> claims) {
    this.client = client;
    this.nodeName = nodeName;
    this.json = json;
    this.clock = clock;
    this.claims = claims;
  }

  /** Writes the inventory (with the latest health); throws when the API server refuses. */
  public synchronized void report(NodeInventory inventory) {
    take(inventory);
    this.observedTime = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    write();
  }

  /**
   * Takes an inventory discovered again (MIG devices gone since the last discovery) and writes it
   * soon, off the caller's thread (an unprepare needs no API server); failed writes are retried.
   */
  public void inventoryChanged(NodeInventory inventory) {
    synchronized (this) {
      take(inventory);
    }
    writeSoon();
  }

  /** Holds {@code inventory} and its status field, each distinct MIG profile table once. */
  private void take(NodeInventory inventory) {
    this.inventory = inventory;
    @SuppressWarnings("unchecked")
    Map<String, Object> record = json.convertValue(inventory, Map.class);
    this.inventoryStatus = InventoryStatus.compact(record);
  }

  /**
   * Takes the node's claims after a prepare or unprepare and writes the holders soon, off the
   * kubelet's path, coalesced with other changes as health is.
   */
  @Override
  public void changed(PreparedClaims now, String claimUid, List<String> claimPods) {
    if (claimPods.isEmpty() || !now.claims().containsKey(claimUid)) {
      pods.remove(claimUid);
    } else {
      pods.put(claimUid, List.copyOf(claimPods));
    }
    writeSoon();
  }

  /**
   * Takes the node's new health and writes it soon, off the caller's thread; later changes that
   * arrive before the write coalesce into it. Failed writes are retried.
   */
  public void reportHealth(NodeHealth health) {
    synchronized (this) {
      this.health = health;
    }
    writeSoon();
  }

  private void writeSoon() {
    if (!closed && healthWritePending.compareAndSet(false, true)) {
      CompletableFuture.delayedExecutor(WRITE_HOLD_MILLIS, TimeUnit.MILLISECONDS, healthWriter)
          .execute(this::writeLatest);
    }
  }

  private void writeLatest() {
    healthWritePending.set(false);
    synchronized (this) {
      if (inventory == null || closed) {
        return; // the first inventory report carries it
      }
      try {
        write();
      } catch (RuntimeException e) {
        LOG.atWarn()
            .setCause(e)
            .log("cannot write device health and holders to the GpuNode; retrying");
        CompletableFuture.delayedExecutor(HEALTH_RETRY_SECONDS, TimeUnit.SECONDS)
            .execute(this::writeSoon);
      }
    }
  }

  /** Writes the plugin's status fields, unless they are what was last written. */
  private void write() {
    Map<String, Object> status = status();
    if (status.equals(written)) {
      return;
    }
    var gpuNodes = client.get().genericKubernetesResources(GPU_NODES);
    if (written == null && gpuNodes.withName(nodeName).get() == null) {
      gpuNodes.resource(newGpuNode()).create();
      LOG.atInfo().addKeyValue("node", nodeName).log("created GpuNode");
    }
    try {
      patchStatus(status);
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
        throw e;
      }
      // Deleted since (by hand, or with its Node gone and back): made again.
      gpuNodes.resource(newGpuNode()).create();
      patchStatus(status);
    }
    written = status;
    LOG.atInfo()
        .addKeyValue("node", nodeName)
        .addKeyValue("gpus", inventory.gpus().size())
        .addKeyValue("gpusFree", status.get("gpusFree"))
        .addKeyValue("unhealthyDevices", health.unhealthyCount())
        .log("reported the inventory, device health and holders in GpuNode status");
  }

  private void patchStatus(Map<String, Object> status) {
    client
        .get()
        .genericKubernetesResources(GPU_NODES)
        .withName(nodeName)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            client.get().getKubernetesSerialization().asJson(Map.of("status", status)));
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

  /**
   * The plugin's fields of the status, every one always present (a merge patch replaces each of
   * them, lists whole) and none of the controller's.
   */
  private Map<String, Object> status() {
    var status = new LinkedHashMap<String, Object>();
    status.put("gpuCount", inventory.gpus().size());
    var products = inventory.gpus().stream().map(Gpu::productName).distinct().toList();
    status.put(
        "product", products.size() == 1 ? products.get(0) : products.isEmpty() ? "" : "mixed");
    status.put("observedTime", observedTime);
    status.put("inventory", inventoryStatus);
    status.put("unhealthyDevices", health.unhealthyCount());
    status.put("health", json.convertValue(health, Map.class));
    NodeUsage usage = NodeUsage.of(nodeName, inventory, health, claims.get(), Map.copyOf(pods));
    status.put("gpusFree", usage.gpusFree());
    status.put("sharedMemoryFree", NodeUsage.quantity(usage.sharedMemoryFreeBytes()));
    status.put("devices", json.convertValue(usage.devices(), List.class));
    return status;
  }

  @Override
  public void close() {
    closed = true;
    healthWriter.shutdownNow();
  }
}
