package dev.tessera.plugin.k8s;

import dev.tessera.api.GpuNodeNames;
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
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes the node's inventory into the status of its {@code GpuNode} (cluster-scoped, named after
 * the node, owned by the Node so it goes with it), creating the object when it is missing. The
 * controller renders the node's ResourceSlices from this status.
 */
public final class GpuNodeReporter {
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

  public GpuNodeReporter(
      Supplier<KubernetesClient> client, String nodeName, JsonMapper json, Clock clock) {
    this.client = client;
    this.nodeName = nodeName;
    this.json = json;
    this.clock = clock;
  }

  public void report(NodeInventory inventory) {
    var gpuNodes = client.get().genericKubernetesResources(GPU_NODES);
    GenericKubernetesResource gpuNode = gpuNodes.withName(nodeName).get();
    if (gpuNode == null) {
      gpuNode = gpuNodes.resource(newGpuNode()).create();
      LOG.atInfo().addKeyValue("node", nodeName).log("created GpuNode");
    }
    gpuNode.setAdditionalProperty("status", status(inventory));
    gpuNodes.resource(gpuNode).updateStatus();
    LOG.atInfo()
        .addKeyValue("node", nodeName)
        .addKeyValue("gpus", inventory.gpus().size())
        .log("reported the inventory in GpuNode status");
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

  private Map<String, Object> status(NodeInventory inventory) {
    var status = new LinkedHashMap<String, Object>();
    status.put("gpuCount", inventory.gpus().size());
    var products = inventory.gpus().stream().map(Gpu::productName).distinct().toList();
    status.put(
        "product", products.size() == 1 ? products.get(0) : products.isEmpty() ? "" : "mixed");
    status.put("observedTime", Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString());
    status.put("inventory", json.convertValue(inventory, Map.class));
    return status;
  }
}
